// Per-provider probe rules from one data file keyed by MX host suffix (data/provider-rules.json):
// how many connections a provider tolerates, whether the catch-all probe may run there, whether an
// accepted RCPT proves anything, and which reason an accept-all answer gets.
import { readFileSync } from "node:fs";
import type { EmailReason } from "./email.types.js";

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
}

interface RawRule {
  mxSuffix: string;
  provider: string;
  acceptsThenBounces?: boolean;
  catchAllProbe?: boolean;
  acceptAllReason?: "accept_all" | "tenant_accept_all";
  maxConnections?: number;
}

const raw = JSON.parse(readFileSync(new URL("./data/provider-rules.json", import.meta.url), "utf8")) as {
  rules: RawRule[];
};

export const PROVIDER_RULES: readonly ProviderRule[] = raw.rules
  .map((r) => ({
    mxSuffix: r.mxSuffix.toLowerCase(),
    provider: r.provider,
    acceptsThenBounces: r.acceptsThenBounces === true,
    catchAllProbe: r.catchAllProbe !== false,
    acceptAllReason: r.acceptAllReason ?? ("accept_all" as const),
    maxConnections: r.maxConnections,
  }))
  // Longest suffix first, so "olc.protection.outlook.com" wins over a shorter one.
  .sort((a, b) => b.mxSuffix.length - a.mxSuffix.length);

/** The rule for an MX host name, matched on whole labels ("x.yahoodns.net", not "evilyahoodns.net"). */
export function providerRuleFor(mxHost: string): ProviderRule | undefined {
  const host = mxHost.toLowerCase().replace(/\.$/, "");
  return PROVIDER_RULES.find((r) => host === r.mxSuffix || host.endsWith(`.${r.mxSuffix}`));
}
