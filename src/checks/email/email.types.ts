// The email check's public shapes: the verdict (the spec's "Email check result" fields plus our
// own reason, retry hint, labels and details) and the provider interface the engine implements.
import type { MailHost } from "./mx.js";
import type { SmtpStage } from "./reply-classifier.js";

export type EmailStatus = "valid" | "invalid" | "risky" | "unknown";
export type EmailType = "corporate" | "personal" | "role";
export type EmailRisk = "low" | "medium" | "high";

/** Why the verdict is what it is. Network failures are reasons, never exceptions. */
export type EmailReason =
  | "deliverable"
  | "catch_all"
  | "invalid_syntax"
  | "unsupported_syntax"
  | "dns_nxdomain"
  | "null_mx"
  | "no_mail_host"
  | "dns_servfail"
  | "dns_timeout"
  | "dns_error"
  | "mailbox_not_found"
  | "mailbox_disabled"
  | "mailbox_full"
  | "greylisted"
  | "smtp_temporary"
  | "smtp_blocked"
  | "smtp_timeout"
  | "smtp_connect_failed"
  | "smtp_connection_dropped"
  | "smtp_protocol_error"
  | "smtp_unknown_reply"
  | "proxy_error"
  /** A defect of ours; logged by the caller, answered as unknown. */
  | "internal_error";

export interface ScoreFactor {
  code: string;
  /** Points added to (or, when negative, taken from) the score. */
  points: number;
}

export interface SmtpDetails {
  /** MX host that gave the deciding answer. */
  host: string;
  stage: SmtpStage | "connect";
  code: number | undefined;
  enhanced: string | undefined;
  text: string;
  /** Classification rule, or the network failure kind. */
  rule: string;
  tls: boolean;
}

export interface EmailVerdictDetails {
  /** The address's domain in ASCII form. */
  inputDomain: string;
  mx: MailHost[];
  implicitMx: boolean;
  smtp: SmtpDetails | undefined;
  /** Where the catch-all answer came from: a probe now, the per-domain cache, or nowhere. */
  catchAllSource: "probe" | "cache" | "none";
  factors: ScoreFactor[];
  message: string | undefined;
}

export interface EmailVerdict {
  email: string;
  status: EmailStatus;
  /** The mailbox accepted the address (deliverable), catch-all or not. */
  valid: boolean;
  catchAll: boolean;
  disposable: boolean;
  service: string;
  /** The SMTP server's domain: the MX host that answered, or would have. */
  domain: string;
  emailType: EmailType;
  emailRisk: EmailRisk;
  emailScore: number;
  reason: EmailReason;
  /** Present when a later retry can settle an answer that is temporary now. */
  retryAfterMs?: number;
  free: boolean;
  role: boolean;
  details: EmailVerdictDetails;
}

/** What POST /v1/check-email, email jobs and lead validation depend on; the engine implements
 *  it, an external provider could too. Implementations never throw for network conditions. */
export interface EmailVerificationProvider {
  verify(email: string): Promise<EmailVerdict>;
  verifyMany(emails: readonly string[]): Promise<EmailVerdict[]>;
  close(): Promise<void>;
}
