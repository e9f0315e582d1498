// The stalled-work sweep, a recurring job (src/jobs/recurring.ts) every JOB_SWEEP_INTERVAL_MS.
import { Type } from "@sinclair/typebox";
import { defineJob, type JobDefinition } from "../jobs/catalog.js";
import type { StalledWorkSweeper } from "./stalled-work.sweeper.js";

const SWEEP_JOB = "work.sweep";

export function lifecycleJobs(sweeper: StalledWorkSweeper, sweepIntervalMs: number): JobDefinition[] {
  return [
    defineJob({
      name: SWEEP_JOB,
      schema: Type.Object({}),
      policy: { retryLimit: 1, retryDelayMs: 5000, expireInMs: 300_000 },
      concurrency: 1,
      handler: async () => {
        await sweeper.sweep();
      },
      recurring: { everyMs: sweepIntervalMs },
    }),
  ];
}
