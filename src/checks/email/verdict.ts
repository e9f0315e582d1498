// Assembles the verdict from the syntax, DNS and SMTP findings plus the list labels.

import type { MailRoute } from "../../net/mx.js";
import type { SmtpFailureKind } from "../../net/smtp-client.js";
import type { EmailReason, EmailVerdict, SmtpDetails } from "./email.types.js";
import { isDisposableDomain, isFreeDomain, isRoleLocal } from "./lists.js";
import { type ProviderRuleLookup, providerRuleFor } from "./provider-rules.js";
import { DEFAULT_TEMPORARY_RETRY_MS, type ReplyOutcome } from "./reply-classifier.js";
import { emailTypeOf, scoreEmail } from "./score.js";
import { detectService } from "./service.js";
import type { RcptOutcome } from "./smtp-session.js";
import type { ParsedEmail } from "./syntax.js";

const FAILURE_REASON: Record<SmtpFailureKind, EmailReason> = {
  connect_refused: "smtp_connect_failed",
  connect_error: "smtp_connect_failed",
  connect_timeout: "smtp_timeout",
  timeout: "smtp_timeout",
  closed: "smtp_connection_dropped",
  protocol: "smtp_protocol_error",
  tls_error: "smtp_protocol_error",
  proxy_error: "proxy_error",
};

const OUTCOME_REASON: Record<ReplyOutcome, EmailReason> = {
  ok: "smtp_unknown_reply",
  deliverable: "deliverable",
  invalid: "mailbox_not_found",
  disabled: "mailbox_disabled",
  mailbox_full: "mailbox_full",
  rate_limited: "rate_limited",
  greylisted: "greylisted",
  temporary: "smtp_temporary",
  blocked: "ip_blocked",
  too_many_recipients: "smtp_unknown_reply",
  unknown: "smtp_unknown_reply",
};

/** Network conditions that a later attempt may well get past. */
const TRANSIENT = new Set<EmailReason>([
  "probe_queue_full",
  "resolver_unavailable",
  "smtp_timeout",
  "smtp_connect_failed",
  "smtp_connection_dropped",
  "dns_servfail",
  "dns_timeout",
  "dns_error",
]);

const ROUTE_REASON = {
  nxdomain: "dns_nxdomain",
  null_mx: "null_mx",
  no_mail_host: "no_mx",
} as const;

export function syntaxVerdict(input: string, parsed: Extract<ParsedEmail, { ok: false }>): EmailVerdict {
  const reason: EmailReason = parsed.reason.endsWith("_unsupported")
    ? "unsupported_syntax"
    : "invalid_syntax";
  const at = input.lastIndexOf("@");
  return assemble({
    email: typeof input === "string" ? input.trim() : "",
    local: at > 0 ? input.slice(0, at) : "",
    domain:
      at >= 0
        ? input
            .slice(at + 1)
            .trim()
            .toLowerCase()
        : "",
    reason,
    message: parsed.message,
  });
}

export function routeVerdict(parsed: Extract<ParsedEmail, { ok: true }>, route: MailRoute): EmailVerdict {
  if (route.kind === "mx" || route.kind === "implicit") throw new Error("route has mail hosts");
  const reason: EmailReason =
    route.kind === "dns_error"
      ? route.failure === "TIMEOUT"
        ? "dns_timeout"
        : route.failure === "SERVFAIL"
          ? "dns_servfail"
          : "dns_error"
      : ROUTE_REASON[route.kind];
  return assemble({ ...parsed, reason, message: route.kind === "dns_error" ? route.message : undefined });
}

/** This host cannot reach port 25 (or its SOCKS proxy) at all: no mail server was asked. */
export function egressVerdict(parsed: Extract<ParsedEmail, { ok: true }>, message: string): EmailVerdict {
  return assemble({ ...parsed, reason: "egress_blocked", message });
}

/** The resolvers fail every canary lookup: no DNS answer about this domain is believed. */
export function resolverUnavailableVerdict(
  parsed: Extract<ParsedEmail, { ok: true }>,
  message: string,
): EmailVerdict {
  return assemble({ ...parsed, reason: "resolver_unavailable", message });
}

/** The queue of addresses waiting for the mail server's sessions is full: not probed. */
export function queueFullVerdict(
  parsed: Extract<ParsedEmail, { ok: true }>,
  route: Extract<MailRoute, { kind: "mx" | "implicit" }>,
  message: string,
): EmailVerdict {
  return assemble({ ...parsed, reason: "probe_queue_full", route, message });
}

/** A background verification that used up its budget without an answer. */
export function budgetVerdict(parsed: Extract<ParsedEmail, { ok: true }>, budgetMs: number): EmailVerdict {
  return assemble({
    ...parsed,
    reason: "smtp_timeout",
    message: `no answer within the job's remaining ${Math.round(budgetMs / 1000)} s`,
  });
}

export function errorVerdict(parsed: Extract<ParsedEmail, { ok: true }>, err: unknown): EmailVerdict {
  const message = err instanceof Error ? err.message : String(err);
  return assemble({ ...parsed, reason: "internal_error", message });
}

export function smtpVerdict(
  parsed: Extract<ParsedEmail, { ok: true }>,
  route: Extract<MailRoute, { kind: "mx" | "implicit" }>,
  o: RcptOutcome,
  /** A second signal proved the mailbox exists although the tenant accepts every address. */
  evidence?: { confirmedBy: "m365_personal_site" },
  ruleFor: ProviderRuleLookup = providerRuleFor,
): EmailVerdict {
  let reason: EmailReason = o.failure
    ? FAILURE_REASON[o.failure.kind]
    : OUTCOME_REASON[o.classified?.outcome ?? "unknown"];
  const provider = ruleFor(o.host || (route.hosts[0]?.host ?? ""));
  if (reason === "deliverable" && o.catchAll === true) reason = provider?.acceptAllReason ?? "accept_all";
  // An accepted RCPT at a provider that accepts everything and bounces later proves nothing.
  else if (reason === "deliverable" && provider?.acceptsThenBounces) reason = "provider_unverifiable";
  if (reason === "tenant_accept_all" && evidence) reason = "deliverable";
  const smtp: SmtpDetails = {
    host: o.host,
    stage: o.stage,
    code: o.reply?.code,
    enhanced: o.reply?.enhanced,
    text: o.reply?.text ?? o.failure?.message ?? "",
    rule: o.classified?.rule ?? o.failure?.kind ?? "",
    tls: o.tls,
  };
  return assemble({
    ...parsed,
    reason,
    route,
    smtp,
    catchAll: o.catchAll,
    catchAllSource: o.catchAllSource,
    retryAfterMs: o.classified?.retryAfterMs,
    message: evidence
      ? "the tenant accepts every address; the mailbox's Microsoft 365 personal site exists"
      : o.failure?.message,
  });
}

interface AssembleInput {
  email: string;
  local: string;
  domain: string;
  reason: EmailReason;
  route?: Extract<MailRoute, { kind: "mx" | "implicit" }>;
  smtp?: SmtpDetails;
  catchAll?: boolean | undefined;
  catchAllSource?: "probe" | "cache" | "none";
  retryAfterMs?: number | undefined;
  message?: string | undefined;
}

function assemble(input: AssembleInput): EmailVerdict {
  const disposable = input.domain !== "" && isDisposableDomain(input.domain);
  const free = input.domain !== "" && isFreeDomain(input.domain);
  const role = input.local !== "" && isRoleLocal(input.local);
  const hosts = input.route?.hosts ?? [];
  const svc = detectService(
    input.domain,
    hosts.map((h) => h.host),
  );
  const implicitMx = input.route?.kind === "implicit";
  const reason: EmailReason = input.reason === "deliverable" && disposable ? "disposable" : input.reason;
  const score = scoreEmail({
    reason,
    catchAll: input.catchAll,
    disposable,
    free,
    role,
    implicitMx,
    gateway: svc.isGateway,
  });
  const verdict: EmailVerdict = {
    email: input.email,
    status: score.status,
    valid: score.valid,
    catchAll: input.catchAll === true,
    disposable,
    service: svc.service,
    domain: input.smtp?.host ?? hosts[0]?.host ?? "",
    emailType: emailTypeOf(role, free, disposable),
    emailRisk: score.emailRisk,
    emailScore: score.emailScore,
    reason,
    free,
    role,
    details: {
      inputDomain: input.domain,
      mx: hosts,
      implicitMx,
      smtp: input.smtp,
      catchAllSource: input.catchAllSource ?? "none",
      factors: score.factors,
      message: input.message,
    },
  };
  const retryAfterMs =
    input.retryAfterMs ?? (TRANSIENT.has(input.reason) ? DEFAULT_TEMPORARY_RETRY_MS : undefined);
  if (retryAfterMs !== undefined && score.status === "unknown") verdict.retryAfterMs = retryAfterMs;
  return verdict;
}
