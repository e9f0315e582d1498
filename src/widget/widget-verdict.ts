// What the widget tells a visitor's browser: the status, a reason, a typo suggestion and three
// list facts. Never SMTP replies, MX hosts or anything about the account: the answer is public.
// The quick facts need no network (syntax, the known-typo, disposable, role and free lists);
// test-mode keys get scripted answers from magic inputs and never reach the network at all.
import type { EmailVerdict } from "../checks/email/email.types.js";
import { isDisposableDomain, isFreeDomain, isRoleLocal } from "../checks/email/lists.js";
import { type ParsedEmail, parseEmail } from "../checks/email/syntax.js";
import { isKnownTypoDomain, suggestDomain } from "../intel/typo.js";

type WidgetStatus = "valid" | "invalid" | "risky" | "unknown";

/** Reasons of the email check (EmailReason) plus the widget's own: `typo` (a known look-alike of a
 *  popular mail domain), `deadline` (not settled in time; the probe goes on), `unavailable` (the
 *  check could not be paid for or run: fail open), `not_scripted` (test mode, no magic input). */
type WidgetReason = EmailVerdict["reason"] | "typo" | "deadline" | "unavailable" | "not_scripted";

export interface WidgetVerdict {
  status: WidgetStatus;
  reason: WidgetReason;
  didYouMean: string | null;
  /** null: not known (the address did not parse). */
  disposable: boolean | null;
  role: boolean | null;
  free: boolean | null;
}

export type Parsed = Extract<ParsedEmail, { ok: true }>;

export type QuickLook =
  | { kind: "answer"; verdict: WidgetVerdict; parsed: Parsed | null }
  /** Nothing decisive without the network; `facts` go into whatever answer comes. */
  | { kind: "needs_probe"; parsed: Parsed; facts: WidgetVerdict };

export function quickLook(email: string): QuickLook {
  const parsed = parseEmail(email);
  if (!parsed.ok)
    return {
      kind: "answer",
      parsed: null,
      verdict: {
        status: "invalid",
        reason: "invalid_syntax",
        didYouMean: null,
        disposable: null,
        role: null,
        free: null,
      },
    };
  const disposable = isDisposableDomain(parsed.domain);
  const facts: WidgetVerdict = {
    status: "unknown",
    reason: "deadline",
    didYouMean: null,
    disposable,
    role: isRoleLocal(parsed.local),
    free: isFreeDomain(parsed.domain),
  };
  // A typo first: the visitor can fix it (some look-alike domains are on the disposable list too).
  if (isKnownTypoDomain(parsed.domain)) {
    const meant = suggestDomain(parsed.domain, true);
    return {
      kind: "answer",
      parsed,
      verdict: {
        ...facts,
        status: "risky",
        reason: "typo",
        didYouMean: meant ? `${parsed.local}@${meant}` : null,
      },
    };
  }
  if (disposable)
    return { kind: "answer", parsed, verdict: { ...facts, status: "risky", reason: "disposable" } };
  return { kind: "needs_probe", parsed, facts };
}

/** The public part of a full verdict. */
export function fromEmailVerdict(v: EmailVerdict): WidgetVerdict {
  return {
    status: v.status,
    reason: v.reason,
    didYouMean: v.didYouMean ?? null,
    disposable: v.disposable,
    role: v.role,
    free: v.free,
  };
}

/**
 * Test mode's scripted answers (docs/widget.md "Test mode"): the local part or domain names the
 * answer. `slow@` answers unknown/deadline after the deadline, like a slow mail server.
 */
export function scriptedVerdict(parsed: Parsed, facts: WidgetVerdict): WidgetVerdict | "slow" {
  const local = parsed.local.toLowerCase();
  switch (local) {
    case "valid":
      return { ...facts, status: "valid", reason: "deliverable" };
    case "invalid":
      return { ...facts, status: "invalid", reason: "mailbox_not_found" };
    case "catchall":
      return { ...facts, status: "risky", reason: "accept_all" };
    case "slow":
      return "slow";
    default:
      return { ...facts, status: "unknown", reason: "not_scripted" };
  }
}
