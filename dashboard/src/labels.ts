// Words for the API's enumerations. Typed as records over the SDK's generated types, so the type
// check fails when the API adds or renames a value; the values themselves stay the API's.
import type { Lead, LeadListQuery, WebhookEvent } from "../../sdk/src/api-types.js";
import { REASON_LABELS } from "../../src/checks/vocabulary.js";

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

/** Email verdicts (check-email `status`, a lead's `emailStatus`). */
export const VERDICT: Record<string, string> = {
  valid: "Valid",
  risky: "Risky",
  invalid: "Invalid",
  unknown: "Unknown",
  processing: "Checking…",
};

/** Reasons of an email verdict, in words: the server's one vocabulary table (src/checks/vocabulary.ts,
 *  also read by the API docs, the CLI and the CSV export), typed over the API's closed list. */
export const REASON: Record<NonNullable<Lead["emailReason"]>, string> = REASON_LABELS;

/** The email score's own factors beside its reason (src/checks/email/score.ts); the first factor of
 *  an email score is its reason, worded by REASON. */
export const EMAIL_FACTOR: Record<string, string> = {
  disposable_domain: "Disposable address service",
  role_account: "Role address (info@, sales@…)",
  free_provider: "Free email provider",
  no_mx_records: "No MX record (mail goes to the domain's address)",
  catch_all_unconfirmed: "Catch-all not ruled out",
  security_gateway: "Behind a mail security gateway",
};

/** A domain's registration (RDAP, ADR 0012) and why it is not known, in words. */
export const REGISTRATION: Record<string, string> = {
  registered: "Registered",
  not_registered: "Not registered",
  unsupported: "Not checkable",
  unknown: "Unknown",
};
export const REGISTRATION_REASON: Record<string, string> = {
  no_rdap_server: "its registry offers no RDAP service",
  no_registrable_domain: "not a registrable domain",
  timeout: "the registry did not answer in time",
  http_error: "the registry answered with an error",
  malformed_response: "the registry's answer could not be read",
  network_error: "the registry could not be reached",
  disabled: "registration lookups are turned off",
};
export const REPUTATION: Record<string, string> = {
  listed: "Listed",
  clean: "Not listed",
  unknown: "Unknown",
  off: "Not checked (turned off)",
};

export const SOURCE: Record<NonNullable<LeadListQuery["source"]>, string> = {
  manual: "Manual",
  api: "API",
  csv: "CSV import",
  google_sheets: "Google Sheets",
  hubspot: "HubSpot",
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
  "sync.completed": "Sync completed",
  "sync.failed": "Sync failed",
};

/** The label of a value, or the value itself when the API sent one we have no words for. */
export function labelOf(labels: Record<string, string>, value: string | null | undefined): string {
  if (value === null || value === undefined || value === "") return "—";
  return labels[value] ?? value.replaceAll("_", " ");
}
