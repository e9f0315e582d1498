// Test mode's email check (ADR 0051, docs/test-mode.md): a verdict from the address alone, made
// without a DNS query or an SMTP connection. The local part (before any `+tag`) or the domain
// names the answer; the verdict is assembled by the same code as a live one (status, score, risk,
// labels and factors follow from the reason), so it has a live verdict's shape, and its
// details.message says it is scripted. Unknown inputs answer unknown/not_scripted.
import { suggestDomain } from "../../intel/typo.js";
import type { EmailReason, EmailVerdict, EmailVerificationProvider } from "../email/email.types.js";
import { parseEmail } from "../email/syntax.js";
import { scriptedVerdict, syntaxVerdict } from "../email/verdict.js";

/** The MX host a scripted verdict names: `.invalid` (RFC 2606), so it can never be resolved. */
const TEST_MODE_MX = "mx.test-mode.invalid";

/** Local parts with a scripted answer. `slow` answers `deliverable` after TEST_MODE_SLOW_MS. */
const MAGIC_LOCAL_PARTS: Readonly<Record<string, EmailReason>> = {
  valid: "deliverable",
  slow: "deliverable",
  invalid: "mailbox_not_found",
  disabled: "mailbox_disabled",
  catchall: "accept_all",
  full: "mailbox_full",
  unknown: "smtp_unknown_reply",
  blocked: "ip_blocked",
};

/** Domains with a scripted answer, whatever the local part. */
const MAGIC_DOMAINS: Readonly<Record<string, EmailReason>> = {
  "nxdomain.example": "dns_nxdomain",
  "nullmx.example": "null_mx",
  "nomx.example": "no_mx",
};

/** How long `slow@...` takes: longer than a short check-email timeout, so a job is handed back. */
const TEST_MODE_SLOW_MS = 5_000;

export interface ScriptedEmailDeps {
  /** How long `slow@` waits (tests shorten it). */
  slowMs?: number;
}

/** The reason an address scripts, or `not_scripted`. Disposable domains need no magic: a
 *  deliverable answer on one becomes `disposable`, as in live mode. */
function scriptedReasonOf(local: string, domain: string): EmailReason {
  const byDomain = MAGIC_DOMAINS[domain.toLowerCase()];
  if (byDomain) return byDomain;
  const base = local.toLowerCase().split("+")[0] ?? "";
  return MAGIC_LOCAL_PARTS[base] ?? "not_scripted";
}

export class ScriptedEmail implements EmailVerificationProvider {
  constructor(private readonly deps: ScriptedEmailDeps = {}) {}

  async verify(email: string): Promise<EmailVerdict> {
    const parsed = parseEmail(email);
    if (!parsed.ok) return syntaxVerdict(email, parsed);
    const reason = scriptedReasonOf(parsed.local, parsed.domain);
    if (parsed.local.toLowerCase().split("+")[0] === "slow")
      await new Promise((resolve) => setTimeout(resolve, this.deps.slowMs ?? TEST_MODE_SLOW_MS));
    const hasMailRoute = !["dns_nxdomain", "null_mx", "no_mx"].includes(reason);
    const suggestion = suggestDomain(parsed.domain, hasMailRoute);
    const verdict = scriptedVerdict(parsed, reason, hasMailRoute ? TEST_MODE_MX : null);
    verdict.didYouMean = suggestion ? `${parsed.local}@${suggestion}` : null;
    return verdict;
  }

  verifyMany(emails: readonly string[]): Promise<EmailVerdict[]> {
    return Promise.all(emails.map((email) => this.verify(email)));
  }

  async close(): Promise<void> {}
}
