// Wires the retention module: settings, the purge and its daily job.
import type { AuditService } from "../audit/audit.service.js";
import type { Config } from "../config/config.js";
import type { JobDefinition } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { retentionJobDefinitions } from "./retention.jobs.js";
import { RetentionRepo } from "./retention.repo.js";
import { type PurgeCounts, RetentionService } from "./retention.service.js";

export interface RetentionModuleDeps {
  config: Pick<Config, "privacy">;
  database: Database;
  clock: Clock;
  queue: JobQueue;
  audit: AuditService;
  onPurged?: (accountId: string, counts: PurgeCounts) => void;
}

export function createRetention(deps: RetentionModuleDeps): {
  retention: RetentionService;
  jobDefinitions: JobDefinition[];
} {
  const retention = new RetentionService({
    config: deps.config,
    database: deps.database,
    clock: deps.clock,
    repo: new RetentionRepo(),
    audit: deps.audit,
    ...(deps.onPurged ? { onPurged: deps.onPurged } : {}),
  });
  return {
    retention,
    jobDefinitions: retentionJobDefinitions(retention, deps.queue, {
      purgeIntervalMs: deps.config.privacy.purgeIntervalMs,
    }),
  };
}
