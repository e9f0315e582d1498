// The words for the API's verdicts and reasons: one table read by the OpenAPI descriptions, the
// CLI, the CSV export and (next) the dashboard, so no surface says "dns nxdomain" beside
// another's "Domain does not exist". Codes stay the API's; these are only their labels. Typed
// over the closed lists, so adding a reason without words fails the type check.
import {
  EMAIL_REASON_DESCRIPTIONS,
  EMAIL_REASONS,
  type EmailReason,
  type EmailStatus,
} from "./email/email.types.js";

/** Email verdicts (check-email `status`, a lead's `emailStatus`). */
const VERDICT_LABELS: Readonly<Record<EmailStatus, string>> = {
  valid: "Valid",
  risky: "Risky",
  invalid: "Invalid",
  unknown: "Unknown",
};

/** What each verdict means, for the API's descriptions. */
const VERDICT_DESCRIPTIONS: Readonly<Record<EmailStatus, string>> = {
  valid: "the mailbox accepts mail and the address is neither catch-all nor disposable",
  risky: "mail may arrive but is not assured (catch-all, disposable, mailbox full)",
  invalid: "mail will not arrive (no such mailbox or domain, no mail server, bad syntax)",
  unknown: "the check could not reach an answer (network or server trouble); never charged as invalid",
};

/** Reasons of an email verdict, in a few words (their full meaning: EMAIL_REASON_DESCRIPTIONS). */
export const REASON_LABELS: Readonly<Record<EmailReason, string>> = {
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

const isReason = (code: string): code is EmailReason => Object.hasOwn(REASON_LABELS, code);

/** The label of a reason code; a code this build does not know reads as its words. */
export function reasonLabel(code: string | null | undefined): string {
  if (!code) return "";
  return isReason(code) ? REASON_LABELS[code] : code.replaceAll("_", " ");
}

/** The reasons as the API documents them: code, label, meaning. */
export const REASON_DOC = EMAIL_REASONS.map(
  (r) => `- \`${r}\` (${REASON_LABELS[r]}): ${EMAIL_REASON_DESCRIPTIONS[r]}`,
).join("\n");

export const VERDICT_DOC = (Object.keys(VERDICT_LABELS) as EmailStatus[])
  .map((v) => `\`${v}\` (${VERDICT_LABELS[v]}): ${VERDICT_DESCRIPTIONS[v]}`)
  .join("; ");
