// Job definitions of the batch module: a batch runs as a chain of short chunk jobs (each well
// within its expiry, so a killed worker's chunk is retried soon by another), and a lead created
// with validation runs as one job. The final failed attempt closes the work so nothing stays
// in `processing`.
import type { JobDefinition } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { BatchRunner } from "./batch-runner.js";
import { BATCH_RUN_JOB, LEAD_VALIDATE_JOB } from "./batches.schemas.js";
import type { LeadValidationService } from "./lead-validation.js";

const BATCH_POLICY = { retryLimit: 5, retryDelayMs: 2000, retryBackoff: true, expireInMs: 120_000 };
/** How long one batch job keeps taking chunks before handing over (well under the expiry). */
const JOB_TIME_SLICE_MS = 30_000;
const LEAD_POLICY = { retryLimit: 3, retryDelayMs: 5000, retryBackoff: true, expireInMs: 600_000 };

export function batchJobDefinitions(
  runner: BatchRunner,
  leadValidation: LeadValidationService,
  queue: JobQueue,
): JobDefinition[] {
  return [
    {
      name: BATCH_RUN_JOB,
      policy: BATCH_POLICY,
      concurrency: 3,
      handler: async (job) => {
        const batchId = String(job.data.batchId);
        try {
          // Several chunks per job while time allows (fewer job hops), then hand over to a new
          // job, keeping each attempt far inside its expiry (JOB_EXPIRY_MS may shorten it).
          const started = Date.now();
          const sliceMs = Math.min(JOB_TIME_SLICE_MS, job.expireInMs / 4);
          let more = await runner.runChunk(batchId);
          while (more && Date.now() - started < sliceMs && !job.signal.aborted) {
            more = await runner.runChunk(batchId);
          }
          if (more) {
            await queue.send(
              BATCH_RUN_JOB,
              { batchId, after: job.id },
              { singletonKey: `${batchId}:${job.id}` },
            );
          }
        } catch (error) {
          if (job.retryCount >= BATCH_POLICY.retryLimit) {
            await runner.failRemaining(batchId, error instanceof Error ? error.message : String(error));
            return;
          }
          throw error;
        }
      },
    },
    {
      name: LEAD_VALIDATE_JOB,
      policy: LEAD_POLICY,
      concurrency: 20,
      handler: async (job) => {
        const accountId = String(job.data.accountId);
        const leadId = String(job.data.leadId);
        try {
          await leadValidation.validateOne(accountId, leadId);
        } catch (error) {
          if (job.retryCount >= LEAD_POLICY.retryLimit) {
            await leadValidation.failOne(
              accountId,
              leadId,
              error instanceof Error ? error.message : String(error),
            );
            return;
          }
          throw error;
        }
      },
    },
  ];
}
