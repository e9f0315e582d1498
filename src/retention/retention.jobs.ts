// The daily retention purge: a recurring job that re-enqueues itself under a singleton key (the
// queue has no cron), like the webhooks' purge.
import { Type } from "@sinclair/typebox";
import { defineJob, type JobDefinition } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { RetentionService } from "./retention.service.js";

const RETENTION_PURGE_JOB = "retention.purge";
const PURGE_KEY = "retention.purge";

export function retentionJobDefinitions(
  retention: RetentionService,
  queue: JobQueue,
  options: { purgeIntervalMs: number },
): JobDefinition[] {
  const next = () =>
    queue.send(RETENTION_PURGE_JOB, {}, { startAfterMs: options.purgeIntervalMs, singletonKey: PURGE_KEY });
  return [
    defineJob({
      name: RETENTION_PURGE_JOB,
      schema: Type.Object({}),
      policy: { retryLimit: 2, retryDelayMs: 60_000, expireInMs: 3_600_000 },
      concurrency: 1,
      handler: async () => {
        try {
          await retention.purgeAll();
        } finally {
          await next();
        }
      },
      onExhausted: async () => {
        await next();
      },
    }),
  ];
}

/** Starts the recurring purge unless it is already scheduled. */
export async function scheduleRetentionPurge(queue: JobQueue): Promise<void> {
  await queue.send(RETENTION_PURGE_JOB, {}, { singletonKey: PURGE_KEY });
}
