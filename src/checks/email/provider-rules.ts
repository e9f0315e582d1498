// Per-provider probe rules from one data file keyed by MX host suffix (data/provider-rules.json):
// how many connections a provider tolerates, whether the catch-all probe may run there, whether an
// accepted RCPT proves anything, which reason an accept-all answer gets, and how long to wait for
// its greeting and replies (docs/decisions/0010-email-verdicts.md, "Provider timeouts").
import { readFileSync } from "node:fs";
import type { EmailReason } from "./email.types.js";
import type { SessionSettings } from "./smtp-handshake.js";

export interface ProviderRule {
  mxSuffix: string;
  provider: string;
  /** The provider answers 250 to every RCPT and bounces later: an accepted RCPT is not evidence. */
  acceptsThenBounces: boolean;
  /** Whether the random-address catch-all probe may run against this provider. */
  catchAllProbe: boolean;
  /** Reason for a domain whose random address was accepted (default: accept_all). */
  acceptAllReason: Extract<EmailReason, "accept_all" | "tenant_accept_all">;
  /** Upper bound on simultaneous connections to one MX host of this provider. */
  maxConnections: number | undefined;
  /** Floor on the wait for the greeting (gateways that delay it on purpose). Never past the
   *  session's total deadline, which is the job's budget in the background. */
  greetingTimeoutMinMs: number | undefined;
  /** Cap on the wait for the reply to any command (EHLO, STARTTLS, MAIL, RCPT, RSET), in both
   *  modes, RFC 5321's background minutes included. Not applied to the greeting. */
  commandTimeoutMaxMs: number | undefined;
}

export type ProviderRuleLookup = (mxHost: string) => ProviderRule | undefined;

interface RawRule {
  mxSuffix: string;
  provider: string;
  acceptsThenBounces?: boolean;
  catchAllProbe?: boolean;
  acceptAllReason?: "accept_all" | "tenant_accept_all";
  maxConnections?: number;
  greetingTimeoutMinMs?: number;
  commandTimeoutMaxMs?: number;
}

const raw = JSON.parse(readFileSync(new URL("./data/provider-rules.json", import.meta.url), "utf8")) as {
  rules: RawRule[];
};

function positiveMs(r: RawRule, field: "greetingTimeoutMinMs" | "commandTimeoutMaxMs"): number | undefined {
  const v = r[field];
  if (v === undefined) return undefined;
  if (!Number.isInteger(v) || v <= 0)
    throw new Error(`provider-rules.json: ${r.mxSuffix}.${field} must be a positive integer`);
  return v;
}

/** Rules from the data file's shape, longest suffix first. Exported for tests with their own rules. */
export function parseProviderRules(rules: readonly RawRule[]): ProviderRule[] {
  return (
    rules
      .map((r) => ({
        mxSuffix: r.mxSuffix.toLowerCase(),
        provider: r.provider,
        acceptsThenBounces: r.acceptsThenBounces === true,
        catchAllProbe: r.catchAllProbe !== false,
        acceptAllReason: r.acceptAllReason ?? ("accept_all" as const),
        maxConnections: r.maxConnections,
        greetingTimeoutMinMs: positiveMs(r, "greetingTimeoutMinMs"),
        commandTimeoutMaxMs: positiveMs(r, "commandTimeoutMaxMs"),
      }))
      // Longest suffix first, so "olc.protection.outlook.com" wins over a shorter one.
      .sort((a, b) => b.mxSuffix.length - a.mxSuffix.length)
  );
}

export const PROVIDER_RULES: readonly ProviderRule[] = parseProviderRules(raw.rules);

/** A lookup over these rules, matched on whole labels ("x.yahoodns.net", not "evilyahoodns.net"). */
export function providerRuleLookup(rules: readonly ProviderRule[]): ProviderRuleLookup {
  return (mxHost) => {
    const host = mxHost.toLowerCase().replace(/\.$/, "");
    return rules.find((r) => host === r.mxSuffix || host.endsWith(`.${r.mxSuffix}`));
  };
}

/** The data file's rule for an MX host name. */
export const providerRuleFor: ProviderRuleLookup = providerRuleLookup(PROVIDER_RULES);

/** Session settings with a provider's timeouts applied: the greeting wait raised to its floor, every
 *  command wait lowered to its cap. The total deadline is untouched, and the session bounds every
 *  wait by what is left of it, so a rule never extends a session or a job past its budget. */
export function withProviderTimeouts(s: SessionSettings, rule: ProviderRule | undefined): SessionSettings {
  if (rule?.greetingTimeoutMinMs === undefined && rule?.commandTimeoutMaxMs === undefined) return s;
  const max = rule.commandTimeoutMaxMs;
  const cap = (ms: number) => (max === undefined ? ms : Math.min(ms, max));
  const stages = s.stageTimeoutsMs ?? {};
  const banner = Math.max(stages.banner ?? s.commandTimeoutMs, rule.greetingTimeoutMinMs ?? 0);
  return {
    ...s,
    commandTimeoutMs: cap(s.commandTimeoutMs),
    stageTimeoutsMs: {
      banner,
      ...(stages.mail === undefined ? {} : { mail: cap(stages.mail) }),
      ...(stages.rcpt === undefined ? {} : { rcpt: cap(stages.rcpt) }),
    },
  };
}
