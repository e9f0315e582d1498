// Wires the retention module: settings, the purge and its daily job.
import type { AuditService } from "../audit/audit.service.js";
import type { Config } from "../config/config.js";
import type { Module } from "../jobs/catalog.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { retentionJobDefinitions } from "./retention.jobs.js";
import { RetentionRepo } from "./retention.repo.js";
import { type PurgeCounts, RetentionService } from "./retention.service.js";

export interface RetentionModuleDeps {
  config: Pick<Config, "privacy">;
  database: Database;
  clock: Clock;
  audit: AuditService;
  /** Each account's purge is logged here. */
  logger: { info(obj: object, msg: string): void };
  /** Told after an account's settings were saved. */
  onSettingsChanged: (accountId: string) => void;
}

export function createRetention(deps: RetentionModuleDeps): Module<{ retention: RetentionService }> {
  const retention = new RetentionService({
    config: deps.config,
    database: deps.database,
    clock: deps.clock,
    repo: new RetentionRepo(),
    audit: deps.audit,
    onPurged: (accountId: string, counts: PurgeCounts) =>
      deps.logger.info({ accountId, ...counts }, "retention purge"),
    onSettingsChanged: deps.onSettingsChanged,
  });
  return {
    services: { retention },
    jobs: retentionJobDefinitions(retention, {
      purgeIntervalMs: deps.config.privacy.purgeIntervalMs,
    }),
  };
}
