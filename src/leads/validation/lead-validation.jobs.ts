// The `lead.validate` job: one lead created or updated with `validate: true`, outside any batch.
// When it will never run again (retries spent, expiry, lease expiry), onExhausted closes the lead.
import { defineJob, type JobDefinition } from "../../jobs/catalog.js";
import { LEAD_VALIDATE_JOB, LeadValidateJobData } from "./lead-validation.schemas.js";
import type { LeadValidationService } from "./lead-validation.service.js";

const LEAD_POLICY = { retryLimit: 3, retryDelayMs: 5000, retryBackoff: true, expireInMs: 600_000 };

export function leadValidationJobs(leadValidation: LeadValidationService): JobDefinition[] {
  return [
    defineJob<LeadValidateJobData>({
      name: LEAD_VALIDATE_JOB,
      schema: LeadValidateJobData,
      policy: LEAD_POLICY,
      concurrency: 20,
      handler: (job) => leadValidation.validateOne(job.data.accountId, job.data.leadId, job.signal),
      onExhausted: async (job) => {
        await leadValidation.failOne(job.data.accountId, job.data.leadId, job.error);
      },
    }),
  ];
}
