// The checks as seen through NetworkHealth: while the resolvers are distrusted no DNS answer
// becomes a fact. A check is answered `resolver_unavailable` without asking anyone, and a check
// that ended on a negative DNS answer (NXDOMAIN, no MX, a DNS failure) is believed only once the
// canaries pass again, so a resolver that starts lying between rounds cannot make gmail.com
// invalid either. Syntax verdicts never need the network and pass through unchanged.
import type { Clock } from "../lib/clock.js";
import type { PathStatus } from "../net/network-health.js";
import type {
  EmailReason,
  EmailVerdict,
  EmailVerificationProvider,
  VerifyOptions,
} from "./email/email.types.js";
import { parseEmail } from "./email/syntax.js";
import { resolverUnavailableVerdict } from "./email/verdict.js";
import { normalizeWebsite } from "./website/normalize.js";
import { PARKED_THRESHOLD } from "./website/parked.js";
import type { WebsiteCheckResult } from "./website/website.types.js";

export interface DnsTrust {
  /** The DNS path's status while it is down; undefined otherwise. */
  dnsDown(): PathStatus | undefined;
  /** Whether the resolvers may be believed now (asks the canaries unless a round is fresh). */
  confirmDns(): Promise<boolean>;
}

/** Reasons that rest on a DNS answer alone: a lying or silent resolver produces each of them. */
const DNS_REASONS: ReadonlySet<EmailReason> = new Set([
  "dns_nxdomain",
  "null_mx",
  "no_mx",
  "dns_servfail",
  "dns_timeout",
  "dns_error",
]);

const DOWN_MESSAGE = "the configured resolvers fail every canary lookup";

export class NetworkGuardedEmail implements EmailVerificationProvider {
  constructor(private readonly deps: { inner: EmailVerificationProvider; dns: DnsTrust }) {}

  async verify(email: string, options?: VerifyOptions): Promise<EmailVerdict> {
    const parsed = parseEmail(email);
    if (!parsed.ok) return this.deps.inner.verify(email, options);
    const down = this.deps.dns.dnsDown();
    if (down) return resolverUnavailableVerdict(parsed, down.reason ?? DOWN_MESSAGE);
    const verdict = await this.deps.inner.verify(email, options);
    const after = this.deps.dns.dnsDown();
    if (after) return resolverUnavailableVerdict(parsed, after.reason ?? DOWN_MESSAGE);
    if (DNS_REASONS.has(verdict.reason) && !(await this.deps.dns.confirmDns()))
      return resolverUnavailableVerdict(parsed, this.deps.dns.dnsDown()?.reason ?? DOWN_MESSAGE);
    return verdict;
  }

  verifyMany(emails: readonly string[], options?: VerifyOptions): Promise<EmailVerdict[]> {
    return Promise.all(emails.map((email) => this.verify(email, options)));
  }

  close(): Promise<void> {
    return this.deps.inner.close();
  }
}

interface WebsiteCheck {
  check(input: string, options?: { signal?: AbortSignal; accountId?: string }): Promise<WebsiteCheckResult>;
}

export class NetworkGuardedWebsite implements WebsiteCheck {
  constructor(private readonly deps: { inner: WebsiteCheck; dns: DnsTrust; clock: Clock }) {}

  async check(input: string, options?: { signal?: AbortSignal }): Promise<WebsiteCheckResult> {
    const site = normalizeWebsite(input);
    if (!site.ok || site.isIpLiteral) return this.deps.inner.check(input, options);
    const down = this.deps.dns.dnsDown();
    if (down) return this.unavailable(input, site.url, down.reason ?? DOWN_MESSAGE);
    const result = await this.deps.inner.check(input, options);
    const after = this.deps.dns.dnsDown();
    if (after) return this.unavailable(input, site.url, after.reason ?? DOWN_MESSAGE);
    if (endedOnDns(result) && !(await this.deps.dns.confirmDns()))
      return this.unavailable(input, site.url, this.deps.dns.dnsDown()?.reason ?? DOWN_MESSAGE);
    return result;
  }

  private unavailable(input: string, url: string, message: string): WebsiteCheckResult {
    return {
      website: url,
      status: "error",
      valid: false,
      httpStatus: null,
      finalUrl: url,
      sslValid: null,
      isParked: null,
      responseTimeMs: 0,
      bodyComplete: null,
      redirectChain: [url],
      error: `resolver_unavailable: ${message}`,
      details: {
        input,
        rejected: null,
        checkedAt: this.deps.clock.now().toISOString(),
        attempts: [],
        tls: null,
        parked: { score: 0, threshold: PARKED_THRESHOLD, kind: null, evidence: [], randomPath: null },
        botProtection: false,
        timings: { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null, totalMs: 0 },
        resolvedAddress: null,
        certificate: null,
        unavailable: { reason: "resolver_unavailable", message },
      },
    };
  }
}

/** No attempt reached an address: the answer is a DNS answer only. */
function endedOnDns(result: WebsiteCheckResult): boolean {
  const attempts = result.details.attempts;
  return (
    result.status === "error" &&
    attempts.length > 0 &&
    attempts.every((a) => a.outcome === "dns_error") &&
    result.details.resolvedAddress === null
  );
}
