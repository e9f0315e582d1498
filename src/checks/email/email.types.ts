// The email check's public shapes: the verdict (the spec's "Email check result" fields plus our
// own reason, retry hint, labels and details) and the provider interface the engine implements.
import type { DmarcRecord, DomainIntel, SpfRecord } from "../../intel/intel.types.js";
import type { MailHost } from "../../net/mx.js";
import type { SmtpStage } from "./reply-classifier.js";

export type EmailStatus = "valid" | "invalid" | "risky" | "unknown";
export type EmailType = "corporate" | "personal" | "role";
export type EmailRisk = "low" | "medium" | "high";

/** Why the verdict is what it is: one closed list, documented per reason in the OpenAPI document
 *  (EMAIL_REASON_DESCRIPTIONS). Network failures are reasons, never exceptions. */
export const EMAIL_REASONS = [
  "deliverable",
  "accept_all",
  "tenant_accept_all",
  "provider_unverifiable",
  "disposable",
  "invalid_syntax",
  "unsupported_syntax",
  "dns_nxdomain",
  "null_mx",
  "no_mx",
  "dns_servfail",
  "dns_timeout",
  "dns_error",
  "mailbox_not_found",
  "mailbox_disabled",
  "mailbox_full",
  "rate_limited",
  "greylisted",
  "smtp_temporary",
  "ip_blocked",
  "smtp_timeout",
  "smtp_connect_failed",
  "smtp_connection_dropped",
  "smtp_protocol_error",
  "smtp_unknown_reply",
  "egress_blocked",
  "resolver_unavailable",
  "probe_queue_full",
  "proxy_error",
  "internal_error",
] as const;

export type EmailReason = (typeof EMAIL_REASONS)[number];

export const EMAIL_REASON_DESCRIPTIONS: Readonly<Record<EmailReason, string>> = {
  deliverable: "The mailbox accepted the address at RCPT and the domain is not catch-all.",
  accept_all: "The domain accepts every address (a random address was accepted too): risky.",
  tenant_accept_all:
    "A Microsoft 365 tenant that accepts every address at RCPT: catch-all, and mail may still bounce later.",
  provider_unverifiable:
    "The provider (Yahoo, AOL and other accept-then-bounce providers) accepts every RCPT and bounces later: an accepted RCPT proves nothing, so the verdict is unknown.",
  disposable: "The mailbox accepted the address but the domain is a disposable-address service: risky.",
  invalid_syntax: "The address is not a valid RFC 5321 address: invalid.",
  unsupported_syntax:
    "The address uses a form this service does not accept (quoted or UTF-8 local part, address literal): invalid.",
  dns_nxdomain: "The domain does not exist: invalid.",
  null_mx: "The domain publishes a Null MX (RFC 7505): it accepts no mail: invalid.",
  no_mx: "The domain has neither MX nor A/AAAA records: no host accepts its mail: invalid.",
  dns_servfail: "DNS answered SERVFAIL for the domain: unknown, retried later.",
  dns_timeout: "DNS did not answer in time: unknown, retried later.",
  dns_error: "Another DNS failure: unknown, retried later.",
  mailbox_not_found: "The mail server said the mailbox does not exist: invalid.",
  mailbox_disabled: "The mail server said the mailbox is disabled, inactive or blocked: invalid.",
  mailbox_full: "The mailbox exists but is over quota: risky.",
  rate_limited:
    "The mailbox exists but is receiving mail too fast right now (a per-mailbox rate limit): risky, retried later.",
  greylisted: "The server asked us to come back later (greylisting): unknown, retried later.",
  smtp_temporary: "The server answered with a temporary failure: unknown, retried later.",
  ip_blocked:
    "The server refused our IP address, HELO name or sender (block list, reputation, reverse DNS, relay or policy): unknown, never invalid.",
  smtp_timeout: "The mail server did not answer in time: unknown, retried later.",
  smtp_connect_failed: "No connection to any mail host: unknown, retried later.",
  smtp_connection_dropped: "The mail server closed the connection mid-conversation: unknown, retried later.",
  smtp_protocol_error: "The mail server broke the SMTP protocol or the TLS handshake failed: unknown.",
  smtp_unknown_reply: "The server refused without a recognisable reason: unknown.",
  egress_blocked:
    "This service cannot reach port 25 (or its SOCKS proxy) at all, so no mail server was asked: unknown.",
  resolver_unavailable:
    "The configured resolvers (DNS_SERVERS) fail every canary lookup (the MX of gmail.com and other very large mail domains, the root's NS): they lie or DNS is blocked, so no DNS answer is believed and nothing was looked up: unknown, retried later.",
  probe_queue_full:
    "Too many addresses were already waiting for this mail server's probe sessions, so this one was not probed: unknown, retried later.",
  proxy_error: "The SOCKS proxy failed: unknown.",
  internal_error: "A defect of ours, logged: unknown.",
};

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

interface EmailVerdictDetails {
  /** The address's domain in ASCII form. */
  inputDomain: string;
  mx: MailHost[];
  implicitMx: boolean;
  smtp: SmtpDetails | undefined;
  /** Where the catch-all answer came from: a probe now, the per-domain cache, or nowhere. */
  catchAllSource: "probe" | "cache" | "none";
  factors: ScoreFactor[];
  message: string | undefined;
  /** The domain's mail configuration; absent for addresses refused on syntax. */
  mailConfig?: MailConfig;
  /** Registration, reputation and mail records of the address's domain; null when not looked up. */
  domainIntel?: DomainIntel | null;
}

/** How the address's domain receives mail, summarised from the MX lookup, the probe and DNS. */
interface MailConfig {
  mx: MailHost[];
  /** The mailbox provider or gateway recognised from the MX hosts. */
  provider: string;
  /** RFC 7505 Null MX; null when the MX lookup failed. */
  nullMx: boolean | null;
  spf: SpfRecord;
  dmarc: DmarcRecord;
  /** Whether the MX host offered STARTTLS; null when no SMTP session got that far. */
  starttls: boolean | null;
}

export interface EmailVerdict {
  email: string;
  status: EmailStatus;
  /** true when the mailbox accepted the address (catch-all or not) or proved it exists (rate
   *  limited); false when the verdict is invalid or the mailbox is full; null when unknown. */
  valid: boolean | null;
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
  /** The address with its domain corrected when that domain looks mistyped (gmial.com); null when not. */
  didYouMean?: string | null;
  details: EmailVerdictDetails;
}

/** How long a verification may take. Background jobs pass their remaining budget: the SMTP
 *  conversation then waits RFC 5321 §4.5.3.2's times (5 minutes for the greeting, MAIL and RCPT)
 *  inside that budget instead of the interactive per-command timeout. */
export interface VerifyOptions {
  background?: { budgetMs: number };
}

/** What POST /v1/check-email, email jobs and lead validation depend on; the engine implements
 *  it, an external provider could too. Implementations never throw for network conditions. */
export interface EmailVerificationProvider {
  verify(email: string, options?: VerifyOptions): Promise<EmailVerdict>;
  verifyMany(emails: readonly string[], options?: VerifyOptions): Promise<EmailVerdict[]>;
  close(): Promise<void>;
}
