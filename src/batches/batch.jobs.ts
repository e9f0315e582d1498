// Job definitions of the batch module: a batch runs as a chain of short chunk jobs (each well
// within its expiry, so a killed worker's chunk is retried soon by another). When a job will never
// run again (retries spent, expiry, lease expiry), its onExhausted hook closes the batch so
// nothing stays in `processing`. (A lead validated outside a batch: src/leads/validation/.)
import { defineJob, type JobDefinition } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { BatchRunner } from "./batch-runner.js";
import { BATCH_RUN_JOB, BatchRunJobData } from "./batches.schemas.js";

const BATCH_POLICY = { retryLimit: 5, retryDelayMs: 2000, retryBackoff: true, expireInMs: 120_000 };
/** How long one batch job keeps taking chunks before handing over (well under the expiry). */
const JOB_TIME_SLICE_MS = 30_000;

export function batchJobDefinitions(runner: BatchRunner, queue: JobQueue): JobDefinition[] {
  return [
    defineJob<BatchRunJobData>({
      name: BATCH_RUN_JOB,
      schema: BatchRunJobData,
      policy: BATCH_POLICY,
      concurrency: 3,
      handler: async (job) => {
        const { batchId } = job.data;
        // Several chunks per job while time allows (fewer job hops), then hand over to a new
        // job, keeping each attempt far inside its expiry (JOB_EXPIRY_MS may shorten it). The
        // job's signal stops a chunk's checks at the expiry.
        const started = Date.now();
        const sliceMs = Math.min(JOB_TIME_SLICE_MS, job.expireInMs / 4);
        let more = await runner.runChunk(batchId, job.signal);
        while (more && Date.now() - started < sliceMs && !job.signal.aborted) {
          more = await runner.runChunk(batchId, job.signal);
        }
        job.signal.throwIfAborted();
        if (more) {
          await queue.send(
            BATCH_RUN_JOB,
            { batchId, after: job.id },
            { singletonKey: `${batchId}:${job.id}` },
          );
        }
      },
      onExhausted: async (job) => {
        await runner.failRemaining(job.data.batchId, job.error);
      },
    }),
  ];
}
