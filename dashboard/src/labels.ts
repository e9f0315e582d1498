// Words for the API's enumerations. Typed as records over the SDK's generated types, so the type
// check fails when the API adds or renames a value; the values themselves stay the API's.
import type { LeadListQuery, WebhookEvent } from "../../sdk/src/api-types.js";

export const VALIDATION_STATUS: Record<NonNullable<LeadListQuery["validationStatus"]>, string> = {
  new: "New",
  processing: "Processing",
  valid: "Valid",
  invalid: "Invalid",
  risky: "Risky",
};

export const RECOMMENDATION: Record<NonNullable<LeadListQuery["leadRecommendation"]>, string> = {
  high_priority: "High priority",
  validate: "Validate",
  research: "Research",
  skip: "Skip",
};

export const SOURCE: Record<NonNullable<LeadListQuery["source"]>, string> = {
  manual: "Manual",
  api: "API",
  csv: "CSV import",
  google_sheets: "Google Sheets",
};

export const WEBHOOK_EVENTS: Record<WebhookEvent, string> = {
  "validation.started": "Validation started",
  "validation.complete": "Validation complete",
  "validation.failed": "Validation failed",
  "lead.created": "Lead created",
  "lead.updated": "Lead updated",
  "lead.validated": "Lead validated",
  "credits.low": "Credits low",
  "credits.depleted": "Credits depleted",
  "batch.started": "Batch started",
  "batch.complete": "Batch complete",
  "batch.progress": "Batch progress",
};

/** The label of a value, or the value itself when the API sent one we have no words for. */
export function labelOf(labels: Record<string, string>, value: string | null | undefined): string {
  if (value === null || value === undefined || value === "") return "—";
  return labels[value] ?? value.replaceAll("_", " ");
}
