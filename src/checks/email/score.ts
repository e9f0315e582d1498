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
  valid: boolean;
  emailScore: number;
  emailRisk: EmailRisk;
  factors: ScoreFactor[];
}

const INVALID_REASONS = new Set<EmailReason>([
  "invalid_syntax",
  "unsupported_syntax",
  "dns_nxdomain",
  "null_mx",
  "no_mail_host",
  "mailbox_not_found",
  "mailbox_disabled",
]);

/** Base points for the SMTP/DNS outcome before the labels adjust them. */
const BASE: Partial<Record<EmailReason, number>> = {
  deliverable: 92,
  catch_all: 55,
  mailbox_full: 25,
};
const UNKNOWN_BASE = 45;

export function isInvalidReason(reason: EmailReason): boolean {
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
  const accepted = input.reason === "deliverable" || input.reason === "catch_all";
  if (input.disposable) factors.push({ code: "disposable_domain", points: -45 });
  if (input.role) factors.push({ code: "role_account", points: -12 });
  if (input.free) factors.push({ code: "free_provider", points: -5 });
  if (input.implicitMx) factors.push({ code: "no_mx_records", points: -10 });
  if (input.reason === "deliverable" && input.catchAll === undefined)
    factors.push({ code: "catch_all_unconfirmed", points: -8 });
  if (accepted && input.gateway) factors.push({ code: "security_gateway", points: -3 });
  const emailScore = Math.max(
    0,
    Math.min(
      100,
      factors.reduce((sum, f) => sum + f.points, 0),
    ),
  );
  let status: EmailStatus = "unknown";
  if (input.reason === "deliverable") status = input.disposable ? "risky" : "valid";
  else if (input.reason === "catch_all" || input.reason === "mailbox_full") status = "risky";
  let emailRisk: EmailRisk = emailScore >= 75 ? "low" : emailScore >= 40 ? "medium" : "high";
  if (input.disposable) emailRisk = "high";
  return { status, valid: accepted, emailScore, emailRisk, factors };
}
