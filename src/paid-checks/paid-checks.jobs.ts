// Job definitions of the paid checks: one `email.verify` job per POST /v1/check-email that did not
// finish within its request (retried inside the 5-minute limit by new jobs the service queues),
// and the hourly purge of validation jobs past their 24 hours.
import { Type } from "@sinclair/typebox";
import { defineJob, type JobDefinition } from "../jobs/catalog.js";
import {
  EMAIL_VERIFY_JOB,
  type EmailChecksService,
  EmailVerifyJobData,
  MAX_VALIDATION_MS,
  VALIDATION_JOBS_PURGE_JOB,
} from "./email-checks.service.js";

export function paidCheckJobs(emailChecks: EmailChecksService): JobDefinition[] {
  // An attempt may wait up to the job's remaining time (RFC 5321 timeouts), so it expires after it.
  const policy = { retryLimit: 2, retryDelayMs: 2000, expireInMs: MAX_VALIDATION_MS + 30_000 };
  return [
    defineJob<EmailVerifyJobData>({
      name: EMAIL_VERIFY_JOB,
      schema: EmailVerifyJobData,
      policy,
      concurrency: 50,
      handler: (job) => emailChecks.runAttempt(job.data.jobId, job.signal),
      onExhausted: async (job) => {
        await emailChecks.failJob(job.data.jobId, job.error);
      },
    }),
    defineJob({
      name: VALIDATION_JOBS_PURGE_JOB,
      schema: Type.Object({}),
      policy: { retryLimit: 1, retryDelayMs: 60_000, expireInMs: 300_000 },
      concurrency: 1,
      handler: async () => {
        await emailChecks.purgeExpired();
      },
      recurring: { everyMs: 3600_000 },
    }),
  ];
}
