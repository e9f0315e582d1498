// Wires the re-validation module: the per-account schedule (API side) and the recurring tick that
// runs due schedules as normal lead-validation batches (background side).
import type { AuditTrail } from "../audit/audit.service.js";
import type { Config } from "../config/config.js";
import type { Module } from "../jobs/catalog.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { revalidationJobDefinitions } from "./revalidation.jobs.js";
import { RevalidationRepo } from "./revalidation.repo.js";
import { type RevalidationDeps, RevalidationService, type RunResult } from "./revalidation.service.js";

/** One run validates at most this many leads: the largest batch the API starts. */
const MAX_LEADS_PER_RUN = 10_000;

export interface RevalidationModuleDeps {
  config: Pick<Config, "prices" | "jobs">;
  database: Database;
  clock: Clock;
  /** The leads module: stale leads are found and validated (charged, evented) there. */
  leads: RevalidationDeps["leads"];
  /** A crashed run's retry finds the batch it started here. */
  batches: RevalidationDeps["batches"];
  audit: AuditTrail;
  isNetworkDown?: () => boolean;
  /** Each run is logged here. */
  logger: { info(obj: object, msg: string): void };
}

export function createRevalidation(
  deps: RevalidationModuleDeps,
): Module<{ revalidation: RevalidationService }> {
  const revalidation = new RevalidationService({
    database: deps.database,
    repo: new RevalidationRepo(),
    clock: deps.clock,
    leads: deps.leads,
    batches: deps.batches,
    priceMilli: deps.config.prices.leadValidation,
    maxLeadsPerRun: MAX_LEADS_PER_RUN,
    audit: deps.audit,
    ...(deps.isNetworkDown ? { isNetworkDown: deps.isNetworkDown } : {}),
  });
  return {
    services: { revalidation },
    jobs: revalidationJobDefinitions(revalidation, {
      tickMs: deps.config.jobs.revalidationTickMs,
      onRun: (result: RunResult) => deps.logger.info(result, "re-validation run"),
    }),
  };
}
