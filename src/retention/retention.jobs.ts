// The daily retention purge: a recurring job (src/jobs/recurring.ts), like the webhooks' purge.
import { Type } from "@sinclair/typebox";
import { defineJob, type JobDefinition } from "../jobs/catalog.js";
import type { RetentionService } from "./retention.service.js";

const RETENTION_PURGE_JOB = "retention.purge";

export function retentionJobDefinitions(
  retention: RetentionService,
  options: { purgeIntervalMs: number },
): JobDefinition[] {
  return [
    defineJob({
      name: RETENTION_PURGE_JOB,
      schema: Type.Object({}),
      policy: { retryLimit: 2, retryDelayMs: 60_000, expireInMs: 3_600_000 },
      concurrency: 1,
      handler: async () => {
        await retention.purgeAll();
      },
      recurring: { everyMs: options.purgeIntervalMs, firstAfterMs: 0 },
    }),
  ];
}
