// From everything known about an address to status, score 0-100, risk and the factors behind them.
import type { EmailReason, EmailRisk, EmailStatus, EmailType, ScoreFactor } from "./email.types.js";

export interface ScoreInput {
  reason: EmailReason;
  /** true/false when settled, undefined when the catch-all probe was inconclusive or not run. */
  catchAll: boolean | undefined;
  disposable: boolean;
  free: boolean;
  role: boolean;
  implicitMx: boolean;
  gateway: boolean;
}

export interface ScoreResult {
  status: EmailStatus;
  /** null whenever the status is unknown: a fact never reached is not "false". */
  valid: boolean | null;
  emailScore: number;
  emailRisk: EmailRisk;
  factors: ScoreFactor[];
}

const INVALID_REASONS = new Set<EmailReason>([
  "invalid_syntax",
  "unsupported_syntax",
  "dns_nxdomain",
  "null_mx",
  "no_mx",
  "mailbox_not_found",
  "mailbox_disabled",
]);

/** The mailbox accepted the address at RCPT. */
const ACCEPTED = new Set<EmailReason>(["deliverable", "accept_all", "tenant_accept_all", "disposable"]);

/** Statuses other than unknown, for reasons that are not invalid. */
const STATUS: Partial<Record<EmailReason, EmailStatus>> = {
  deliverable: "valid",
  accept_all: "risky",
  tenant_accept_all: "risky",
  disposable: "risky",
  mailbox_full: "risky",
  rate_limited: "risky",
};

/** Base points for the SMTP/DNS outcome before the labels adjust them. */
const BASE: Partial<Record<EmailReason, number>> = {
  deliverable: 92,
  disposable: 92,
  accept_all: 55,
  tenant_accept_all: 50,
  rate_limited: 60,
  provider_unverifiable: 50,
  mailbox_full: 25,
};
const UNKNOWN_BASE = 45;

function isInvalidReason(reason: EmailReason): boolean {
  return INVALID_REASONS.has(reason);
}

export function emailTypeOf(role: boolean, free: boolean, disposable: boolean): EmailType {
  if (role) return "role";
  return free || disposable ? "personal" : "corporate";
}

export function scoreEmail(input: ScoreInput): ScoreResult {
  if (isInvalidReason(input.reason)) {
    return {
      status: "invalid",
      valid: false,
      emailScore: 0,
      emailRisk: "high",
      factors: [{ code: input.reason, points: 0 }],
    };
  }
  const base = BASE[input.reason] ?? UNKNOWN_BASE;
  const factors: ScoreFactor[] = [{ code: input.reason, points: base }];
  const accepted = ACCEPTED.has(input.reason);
  if (input.disposable) factors.push({ code: "disposable_domain", points: -45 });
  if (input.role) factors.push({ code: "role_account", points: -12 });
  if (input.free) factors.push({ code: "free_provider", points: -5 });
  if (input.implicitMx) factors.push({ code: "no_mx_records", points: -10 });
  if (input.reason === "deliverable" && input.catchAll === undefined)
    factors.push({ code: "catch_all_unconfirmed", points: -8 });
  if (accepted && input.gateway) factors.push({ code: "security_gateway", points: -3 });
  // The 0-100 bounds are a factor of their own carrying what they moved: the score is the sum.
  const sum = factors.reduce((total, f) => total + f.points, 0);
  if (sum < 0) factors.push({ code: "score_floor", points: -sum });
  else if (sum > 100) factors.push({ code: "score_ceiling", points: 100 - sum });
  const emailScore = factors.reduce((total, f) => total + f.points, 0);
  let status: EmailStatus = STATUS[input.reason] ?? "unknown";
  if (status === "valid" && input.disposable) status = "risky";
  let valid: boolean | null = null;
  if (accepted || input.reason === "rate_limited") valid = true;
  else if (input.reason === "mailbox_full") valid = false;
  let emailRisk: EmailRisk = emailScore >= 75 ? "low" : emailScore >= 40 ? "medium" : "high";
  if (input.disposable) emailRisk = "high";
  return { status, valid, emailScore, emailRisk, factors };
}
