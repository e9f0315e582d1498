// Wires the batches module: the service that creates batches and schedules validation work (the
// leads module's ValidationScheduler), its limits, the runner of chunk jobs and the `batch.run`
// job. Leads are read and written through lead validation, never here.
import type { WebsiteChecker } from "../checks/website/website.types.js";
import type { Config } from "../config/config.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { EventBus } from "../events/events.js";
import type { Module } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { WebsiteNormalizer } from "../leads/lead-fields.js";
import type { LeadValidationService } from "../leads/validation/lead-validation.service.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { batchJobDefinitions } from "./batch.jobs.js";
import { BatchLimits } from "./batch-limits.js";
import { BatchRunner } from "./batch-runner.js";
import { BatchesRepo } from "./batches.repo.js";
import { BatchesService } from "./batches.service.js";

export interface BatchesModuleDeps {
  config: Pick<Config, "limits" | "prices">;
  database: Database;
  events: EventBus;
  clock: Clock;
  queue: JobQueue;
  credits: CreditsService;
  leadValidation: LeadValidationService;
  /** The website checker behind the network guard (domain batches). */
  website: WebsiteChecker;
  normalizeWebsite: WebsiteNormalizer;
  /** Sends the unsigned ad-hoc callback of a batch started with `webhookUrl` (the webhooks module). */
  sendCallback: (url: string, payload: Record<string, unknown>) => Promise<void>;
  onError: (error: unknown, context: string) => void;
}

export function createBatches(
  deps: BatchesModuleDeps,
): Module<{ batches: BatchesService; batchRunner: BatchRunner; batchesRepo: BatchesRepo }> {
  const { config, database, events, clock, queue } = deps;
  const repo = new BatchesRepo();
  const batches = new BatchesService({
    database,
    repo,
    credits: deps.credits,
    events,
    clock,
    queue,
    limits: new BatchLimits({ clock, repo, limits: config.limits }),
    leadValidation: deps.leadValidation,
    normalizeWebsite: deps.normalizeWebsite,
    prices: config.prices,
  });
  const batchRunner = new BatchRunner({
    database,
    repo,
    events,
    clock,
    leadValidation: deps.leadValidation,
    website: deps.website,
    chunkSize: config.limits.batchChunkSize,
    sendCallback: deps.sendCallback,
    onError: deps.onError,
  });
  return {
    services: { batches, batchRunner, batchesRepo: repo },
    jobs: batchJobDefinitions(batchRunner, queue),
  };
}
