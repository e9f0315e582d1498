// The sync job: one durable job per pass. It advances the sync as far as it can; while the sync's
// validation batch runs it hands over to a new job started a little later (no attempt waits
// inside its expiry). Retries (429 storms, 5xx, a killed worker) resume from the stored cursor;
// when they are spent the sync ends failed with the reason.
import { defineJob, type JobDefinition } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import { SYNC_JOB, SyncJobData, WATCH_JOB, WatchJobData } from "./integrations.schemas.js";
import type { SyncRunner } from "./sync-runner.js";
import type { SyncsService } from "./syncs.service.js";

const SYNC_POLICY = { retryLimit: 8, retryDelayMs: 2000, retryBackoff: true, expireInMs: 15 * 60_000 };

export function integrationJobDefinitions(
  runner: SyncRunner,
  syncs: SyncsService,
  queue: JobQueue,
  pollMs: number,
): JobDefinition[] {
  return [
    defineJob<WatchJobData>({
      name: WATCH_JOB,
      schema: WatchJobData,
      policy: { retryLimit: 5, retryDelayMs: 5000, retryBackoff: true, expireInMs: 60_000 },
      concurrency: 2,
      handler: (job) => syncs.startWatchPass(job.data.watchId, job.data.after),
    }),
    defineJob<SyncJobData>({
      name: SYNC_JOB,
      schema: SyncJobData,
      policy: SYNC_POLICY,
      concurrency: 2,
      handler: async (job) => {
        const outcome = await runner.run(job.data.syncId, job.signal);
        if (outcome === "waiting") {
          await queue.send(
            SYNC_JOB,
            { syncId: job.data.syncId },
            { startAfterMs: pollMs, singletonKey: `${job.data.syncId}:${job.id}` },
          );
        }
      },
      onExhausted: async (job) => {
        await runner.giveUp(job.data.syncId, job.error);
      },
    }),
  ];
}
