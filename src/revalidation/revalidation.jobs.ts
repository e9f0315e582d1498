// The re-validation tick: a recurring job that runs every due schedule and re-enqueues itself
// under a singleton key (the queue has no cron), like the retention purge.
import { Type } from "@sinclair/typebox";
import { defineJob, type JobDefinition } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { RevalidationService, RunResult } from "./revalidation.service.js";

const REVALIDATION_TICK_JOB = "revalidation.tick";
const TICK_KEY = "revalidation.tick";

export function revalidationJobDefinitions(
  revalidation: RevalidationService,
  queue: JobQueue,
  options: { tickMs: number; onRun?: (result: RunResult) => void },
): JobDefinition[] {
  const next = () =>
    queue.send(REVALIDATION_TICK_JOB, {}, { startAfterMs: options.tickMs, singletonKey: TICK_KEY });
  return [
    defineJob({
      name: REVALIDATION_TICK_JOB,
      schema: Type.Object({}),
      // A run is a few queries and one batch start; a crash mid-run is retried (the claim lease and
      // the batch's source keep it from charging twice).
      policy: { retryLimit: 3, retryDelayMs: 30_000, expireInMs: 10 * 60_000 },
      concurrency: 1,
      handler: async () => {
        try {
          for (const result of await revalidation.runDue()) options.onRun?.(result);
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

/** Starts the recurring tick unless it is already scheduled. */
export async function scheduleRevalidation(queue: JobQueue): Promise<void> {
  await queue.send(REVALIDATION_TICK_JOB, {}, { singletonKey: TICK_KEY });
}
