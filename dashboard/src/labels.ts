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

/** Email verdicts (check-email `status`, a lead's `emailStatus`). */
export const VERDICT: Record<string, string> = {
  valid: "Valid",
  risky: "Risky",
  invalid: "Invalid",
  unknown: "Unknown",
  processing: "Checking…",
};

/** Reasons of an email verdict, in words. An unlisted code is shown with its underscores as spaces. */
export const REASON: Record<string, string> = {
  deliverable: "Mailbox accepts mail",
  catch_all: "Domain accepts any address",
  invalid_syntax: "Not a valid address",
  unsupported_syntax: "Address form not supported",
  dns_nxdomain: "Domain does not exist",
  null_mx: "Domain takes no mail",
  no_mail_host: "No mail server",
  dns_servfail: "DNS server failure",
  dns_timeout: "DNS timed out",
  dns_error: "DNS error",
  mailbox_not_found: "Mailbox does not exist",
  mailbox_disabled: "Mailbox disabled",
  mailbox_full: "Mailbox full",
  greylisted: "Greylisted, try later",
  smtp_temporary: "Temporary mail server refusal",
  smtp_blocked: "Mail server refused the check",
  smtp_timeout: "Mail server timed out",
  smtp_connect_failed: "Mail server unreachable",
  smtp_connection_dropped: "Mail server hung up",
  smtp_protocol_error: "Mail server protocol error",
  smtp_unknown_reply: "Unclear mail server reply",
  proxy_error: "Proxy error",
  internal_error: "Check failed on our side",
  disposable: "Disposable address",
  role: "Role address",
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
