// The re-validation tick: a recurring job (src/jobs/recurring.ts) that runs every due schedule,
// like the retention purge.
import { Type } from "@sinclair/typebox";
import { defineJob, type JobDefinition } from "../jobs/catalog.js";
import type { RevalidationService, RunResult } from "./revalidation.service.js";

const REVALIDATION_TICK_JOB = "revalidation.tick";

export function revalidationJobDefinitions(
  revalidation: RevalidationService,
  options: { tickMs: number; onRun?: (result: RunResult) => void },
): JobDefinition[] {
  return [
    defineJob({
      name: REVALIDATION_TICK_JOB,
      schema: Type.Object({}),
      // A run is a few queries and one batch start; a crash mid-run is retried (the claim lease and
      // the batch's source keep it from charging twice).
      policy: { retryLimit: 3, retryDelayMs: 30_000, expireInMs: 10 * 60_000 },
      concurrency: 1,
      handler: async () => {
        for (const result of await revalidation.runDue()) options.onRun?.(result);
      },
      recurring: { everyMs: options.tickMs, firstAfterMs: 0 },
    }),
  ];
}
