// Words for the API's enumerations. Typed as records over the SDK's generated types, so the type
// check fails when the API adds or renames a value; the values themselves stay the API's.
import type { Lead, LeadListQuery, WebhookEvent } from "../../sdk/src/api-types.js";

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

/** Reasons of an email verdict, in words: the API's closed list (EMAIL_REASONS, ADR 0010), so the
 *  type check fails when the API adds or renames one. */
export const REASON: Record<NonNullable<Lead["emailReason"]>, string> = {
  deliverable: "Mailbox accepts mail",
  accept_all: "Domain accepts every address",
  tenant_accept_all: "Microsoft 365 tenant accepts every address",
  provider_unverifiable: "Provider cannot be verified (accepts, bounces later)",
  disposable: "Disposable address service",
  invalid_syntax: "Not a valid address",
  unsupported_syntax: "Address form not supported",
  dns_nxdomain: "Domain does not exist",
  null_mx: "Domain accepts no mail (Null MX)",
  no_mx: "Domain has no mail server",
  dns_servfail: "DNS failure",
  dns_timeout: "DNS timed out",
  dns_error: "DNS error",
  mailbox_not_found: "Mailbox does not exist",
  mailbox_disabled: "Mailbox disabled",
  mailbox_full: "Mailbox full",
  rate_limited: "Mailbox rate-limited (exists)",
  greylisted: "Greylisted, retry later",
  smtp_temporary: "Temporary mail server failure",
  ip_blocked: "Our server was refused (not the mailbox)",
  smtp_timeout: "Mail server timed out",
  smtp_connect_failed: "Mail server unreachable",
  smtp_connection_dropped: "Mail server hung up",
  smtp_protocol_error: "Mail server protocol error",
  smtp_unknown_reply: "Refused without a reason",
  egress_blocked: "Port 25 blocked on our side",
  resolver_unavailable: "Our DNS resolver is unreliable; retried",
  probe_queue_full: "Too busy with this mail server; retried",
  proxy_error: "Proxy failure",
  internal_error: "Internal error",
};

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
