// Wire shapes of lead validation: the `lead.validate` job's name and payload, and the
// `lead.validated` event's payload (the single-lead job and the batch runner send the same one).
import { type Static, Type } from "@sinclair/typebox";
import type { LeadValidation } from "./lead-validator.js";

export const LEAD_VALIDATE_JOB = "lead.validate";

export const LeadValidateJobData = Type.Object({ accountId: Type.String(), leadId: Type.String() });
export type LeadValidateJobData = Static<typeof LeadValidateJobData>;

/** `batchId`: the batch that validated the lead, null for a lead validated on its own. */
export function leadValidatedPayload(validation: LeadValidation, batchId: string | null) {
  return {
    leadId: validation.leadId,
    batchId,
    validationStatus: validation.rating.validationStatus,
    deliverabilityRating: validation.rating.rating,
    recommendation: validation.rating.recommendation,
    emailValid: validation.email.valid,
    emailReason: validation.email.reason,
    domainHttpStatus: validation.website?.httpStatus ?? null,
  };
}
