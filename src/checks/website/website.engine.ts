// The website check engine behind POST /v1/check-website. Strategy (spec, "POST /v1/check-website"):
//   1. initial try with firstTryTimeoutMs; 2. one retry with retryTimeoutMs after a soft failure
//   (timeout, 5xx, TLS problem); 3. fallbacks with fallbackTimeoutMs: a TLS problem tries http, a DNS
//   failure or 404 tries the www variant; 4. hard failures (DNS, refused, unreachable) are never
//   retried. Everything is bounded by totalDeadlineMs. Among the attempts the most informative one
//   answers (a response beats a timeout beats an error; ties go to the earlier attempt).
import { performance } from "node:perf_hooks";
import type { DomainIntelProvider, DomainStanding } from "../../intel/intel.types.js";
import { type Clock, iso, systemClock } from "../../lib/clock.js";
import type { DnsResolver } from "../../net/dns.js";
import type { HttpClient, HttpTimings, TlsInfo } from "../../net/http-client.js";
import { collectDnsEvidence, type DnsEvidence, hasWildcardDns, NO_DNS_EVIDENCE } from "./dns-evidence.js";
import { scanHtml } from "./html-scan.js";
import { type ProbeOptions, type ProbeResult, probeUrl } from "./http-probe.js";
import { type NormalizedWebsite, normalizeWebsite } from "./normalize.js";
import {
  evaluateParked,
  PARKED_THRESHOLD,
  type ParkedDetector,
  type ParkedVerdict,
  RANDOM_PATH_WEIGHT,
} from "./parked.js";
import { loadParkingIndicators, type ParkingIndicators } from "./parking-indicators.js";
import type {
  AttemptOutcome,
  AttemptRecord,
  AttemptStep,
  CertificateSummary,
  WebsiteCheckResult,
  WebsiteStatus,
} from "./website.types.js";

export interface WebsiteEngineOptions {
  dns: DnsResolver;
  /** Makes every request, behind the SSRF guard; its options (private targets, CA, default ports,
   *  user agent) are the wiring's choice, not the engine's. */
  client: HttpClient;
  clock?: Clock;
  firstTryTimeoutMs: number;
  retryTimeoutMs: number;
  fallbackTimeoutMs: number;
  totalDeadlineMs: number;
  /** Bytes of a page read for parked detection (default 256 KiB). */
  maxBodyBytes?: number;
  /** Cap on reading that prefix once headers arrived; default none: the attempt's own timeout
   *  bounds the whole exchange, body included (ADR 0007, slow pages). */
  bodyTimeoutMs?: number;
  /** Monotonic milliseconds for deadlines and responseTimeMs (default performance.now; tests pass
   *  the mocked Date.now, and the client's own nowMs with it). */
  nowMs?: () => number;
  maxRedirects?: number;
  /** Preloaded indicators, or a path to a TSV in the parking-indicators format. */
  indicators?: ParkingIndicators | string;
  /** The page model and lexicon (default: the committed data/parked-model.json; model null: rules alone). */
  parkedDetector?: ParkedDetector;
  /**
   * Ask a random path of the same host when the page looks parked but falls short of the
   * threshold by no more than the corroboration weight (default true): a lander answers every
   * path with the same page. Costs one request, within the total deadline.
   */
  corroborateParked?: boolean;
  /** Time allowed for that request (default 3 s). */
  corroborationTimeoutMs?: number;
  /** Randomness for the random path (tests inject it). */
  random?: () => number;
  /** Domain intelligence for the site's domain, looked up alongside the attempts; omitted: none. */
  intel?: DomainIntelProvider;
  /** Longest the check waits for it, counted from the check's start (default 3 s; never past the deadline). */
  intelBudgetMs?: number;
  /** Told of every finished check's verdict (metrics); the engine's answer is unchanged. */
  onChecked?: (status: WebsiteStatus) => void;
}

type Attempt = ProbeResult & {
  step: AttemptStep;
  because: AttemptOutcome | null;
  url: string;
  timeoutMs: number;
};

const SOFT: ReadonlySet<AttemptOutcome> = new Set(["timeout", "server_error", "tls_error"]);
const INACTIVE: ReadonlySet<AttemptOutcome> = new Set([
  "not_found",
  "client_error",
  "server_error",
  "timeout",
]);

function rank(outcome: AttemptOutcome): number {
  if (outcome === "ok") return 3;
  if (outcome === "timeout") return 1;
  return INACTIVE.has(outcome) ? 2 : 0;
}

export class WebsiteEngine {
  private readonly client: HttpClient;
  private readonly indicators: ParkingIndicators;
  private readonly clock: Clock;
  private readonly now: () => number;
  private readonly probe: ProbeOptions;

  constructor(private readonly options: WebsiteEngineOptions) {
    this.client = options.client;
    this.indicators =
      typeof options.indicators === "object" ? options.indicators : loadParkingIndicators(options.indicators);
    this.clock = options.clock ?? systemClock;
    this.now = options.nowMs ?? (() => performance.now());
    this.probe = {
      maxRedirects: options.maxRedirects ?? 10,
      maxBodyBytes: options.maxBodyBytes ?? 256 * 1024,
      bodyTimeoutMs: options.bodyTimeoutMs,
      nowMs: this.now,
    };
  }

  /** `signal`: the caller's job ran out of time; the check stops at once (remaining attempts are
   *  not made, the one in flight ends as a timeout) and the caller discards the answer. */
  async check(input: string, options: { signal?: AbortSignal } = {}): Promise<WebsiteCheckResult> {
    const result = await this.run(input, options.signal);
    this.options.onChecked?.(result.status);
    return result;
  }

  private async run(input: string, signal: AbortSignal | undefined): Promise<WebsiteCheckResult> {
    const started = this.now();
    const checkedAt = iso(this.clock.now());
    const site = normalizeWebsite(input);
    if (!site.ok) return rejected(input, site, checkedAt);
    const deadline = started + this.options.totalDeadlineMs;
    const dnsFacts = site.isIpLiteral
      ? Promise.resolve(NO_DNS_EVIDENCE)
      : collectDnsEvidence(this.options.dns, site.host).catch(() => NO_DNS_EVIDENCE);
    const intel = this.startIntel(site, started, deadline);
    const attempts = await this.runStrategy(site, deadline, signal);
    // Without a single resolved address there is no site to judge, and no reason to keep a DNS
    // failure waiting on more lookups against the same silent or missing zone.
    const resolved = attempts.some((a) => a.hops.some((h) => h.address !== null));
    const evidence = resolved
      ? await withinDeadline(dnsFacts, deadline - this.now(), NO_DNS_EVIDENCE)
      : NO_DNS_EVIDENCE;
    const best = bestAttempt(attempts);
    let parked = this.judgeParked(site.host, best, evidence, null, null);
    let randomPath: { url: string; samePage: boolean } | null = null;
    if (this.shouldCorroborate(best, parked)) {
      // Only a page that is undecided on its own costs a request and a lookup: the same page at a
      // random path, and a random subdomain resolving to the host's own address (wildcard DNS).
      const token = this.randomToken();
      const wildcard = site.isIpLiteral
        ? Promise.resolve(null)
        : hasWildcardDns(this.options.dns, site.host, evidence.addresses, token).catch(() => null);
      randomPath = await this.askRandomPath(best, deadline, token);
      const asked = this.now() + (this.options.corroborationTimeoutMs ?? 3_000);
      const wildcardDns = await withinDeadline(wildcard, Math.min(deadline, asked) - this.now(), null);
      if (randomPath || wildcardDns !== null)
        parked = this.judgeParked(site.host, best, evidence, randomPath?.samePage ?? null, wildcardDns);
    }
    const result = this.verdict(input, attempts, best, parked, randomPath, checkedAt, this.now() - started);
    if (this.options.intel) result.details.domainIntel = await intel;
    return result;
  }

  private startIntel(
    site: Extract<NormalizedWebsite, { ok: true }>,
    started: number,
    deadline: number,
  ): Promise<DomainStanding | null> {
    if (!this.options.intel || site.isIpLiteral) return Promise.resolve(null);
    const budgetMs = Math.min(this.options.intelBudgetMs ?? 3000, deadline - started);
    return this.options.intel.standing(site.host, { budgetMs }).catch(() => null);
  }

  private judgeParked(
    host: string,
    best: Attempt,
    dnsFacts: DnsEvidence,
    samePageAtRandomPath: boolean | null,
    wildcardDns: boolean | null,
  ): ParkedVerdict {
    const last = best.last;
    const connected = best.hops[0]?.address;
    return evaluateParked(
      {
        host,
        ...dnsFacts,
        addresses:
          connected && !dnsFacts.addresses.includes(connected)
            ? [connected, ...dnsFacts.addresses]
            : dnsFacts.addresses,
        chain: best.hops.map((h) => h.url),
        headers: last?.ok ? last.headers : {},
        body: last?.ok ? last.body.toString("utf8") : "",
        bodyCut: last?.ok ? last.bodyTruncated === "timeout" : false,
        samePageAtRandomPath,
        wildcardDns,
      },
      this.indicators,
      this.options.parkedDetector,
    );
  }

  private shouldCorroborate(best: Attempt, parked: ParkedVerdict): boolean {
    if (this.options.corroborateParked === false || best.outcome !== "ok" || parked.isParked) return false;
    return parked.score >= PARKED_THRESHOLD - RANDOM_PATH_WEIGHT;
  }

  /** GETs a random path on the final URL's origin and compares its page with the one judged. */
  private randomToken(): string {
    const random = this.options.random ?? Math.random;
    return Array.from(
      { length: 12 },
      () => "abcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(random() * 36)],
    ).join("");
  }

  private async askRandomPath(best: Attempt, deadline: number, token: string) {
    const finalUrl = best.hops[best.hops.length - 1]?.url;
    const last = best.last;
    if (!finalUrl || !last?.ok) return null;
    const url = new URL(`/${token}`, finalUrl).href;
    const budget = Math.floor(Math.min(this.options.corroborationTimeoutMs ?? 3_000, deadline - this.now()));
    if (budget <= 0) return null;
    const probe = await probeUrl(this.client, url, budget, this.probe);
    const answer = probe.last;
    if (probe.outcome !== "ok" || !answer?.ok) return { url, samePage: false };
    return { url, samePage: samePage(last.body.toString("utf8"), answer.body.toString("utf8")) };
  }

  private async runStrategy(
    site: Extract<NormalizedWebsite, { ok: true }>,
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<Attempt[]> {
    const attempts: Attempt[] = [];
    const { firstTryTimeoutMs, retryTimeoutMs, fallbackTimeoutMs } = this.options;
    // An attempt that timed out used its whole budget, even when its timer fired a little early
    // (timers run on the event loop's cached clock): so the budgets never add up past the deadline.
    let usedUntil = 0;
    const run = async (url: string, step: AttemptStep, because: AttemptOutcome | null, budgetMs: number) => {
      const now = Math.max(this.now(), usedUntil);
      const left = Math.floor(Math.min(budgetMs, deadline - now));
      // The initial attempt always runs (at least 1 ms), so a verdict always has an attempt.
      const timeoutMs = step === "initial" ? Math.max(1, left) : left;
      if (timeoutMs <= 0 || (step !== "initial" && signal?.aborted)) return null;
      const result = await probeUrl(this.client, url, timeoutMs, this.probe, signal);
      if (result.outcome === "timeout") usedUntil = now + timeoutMs;
      const attempt: Attempt = { ...result, step, because, url, timeoutMs };
      attempts.push(attempt);
      return attempt;
    };
    const done = (a: Attempt | null) => a === null || a.outcome === "ok" || a.outcome === "blocked";

    let primary = await run(site.url, "initial", null, firstTryTimeoutMs);
    if (done(primary)) return attempts;
    if (SOFT.has(primary!.outcome)) {
      const retry = await run(site.url, "retry", primary!.outcome, retryTimeoutMs);
      if (retry === null || done(retry)) return attempts;
      primary = retry;
    }
    const before = primary!.outcome;
    // A bare domain was never promised https: when nothing listens there, http is the next try.
    const tryHttp =
      site.scheme === "https" && (before === "tls_error" || (before === "refused" && !site.hadScheme));
    let viaHttp: Attempt | null = null;
    if (tryHttp) {
      viaHttp = await run(withScheme(site.url, "http"), "fallback_http", before, fallbackTimeoutMs);
      if (viaHttp === null || done(viaHttp)) return attempts;
    }
    const missing = [primary, viaHttp].find((a) => a?.outcome === "dns_error" || a?.outcome === "not_found");
    const www = wwwVariant(site);
    if (missing && www) await run(www, "fallback_www", missing.outcome, fallbackTimeoutMs);
    return attempts;
  }

  private verdict(
    input: string,
    attempts: Attempt[],
    best: Attempt,
    parked: ParkedVerdict,
    randomPath: { url: string; samePage: boolean } | null,
    checkedAt: string,
    elapsedMs: number,
  ): WebsiteCheckResult {
    const status: WebsiteStatus =
      best.outcome === "ok" ? "active" : INACTIVE.has(best.outcome) ? "inactive" : "error";
    const finalHop = best.hops[best.hops.length - 1];
    const finalUrl = finalHop?.url ?? best.url;
    const tls = finalTls(best, attempts);
    // Reached: some attempt got an HTTP answer, or a certificate was refused (a server was there
    // and offers no working HTTPS). DNS failures, refusals and timeouts alone reach nobody.
    const answered = attempts.some((a) => a.hops.some((h) => h.status !== null));
    const reached = answered || attempts.some((a) => a.outcome === "tls_error");
    const sslValid = reached
      ? finalUrl.startsWith("https:") && best.outcome !== "tls_error" && tls?.valid === true
      : null;
    const chain = best.hops.map((h) => h.url);
    const page = best.last?.ok ? best.last : null;
    // Headers that came without one byte of their page: no page was served, so none was judged.
    const judged = answered && !(best.outcome === "timeout" && page !== null);
    return {
      website: best.url,
      status,
      valid: status === "active",
      httpStatus: best.httpStatus,
      finalUrl,
      sslValid,
      isParked: judged ? parked.isParked : null,
      responseTimeMs: Math.round(elapsedMs),
      bodyComplete: page ? page.bodyTruncated === false || page.bodyTruncated === "size" : null,
      redirectChain: chain.length > 0 ? chain : [best.url],
      error: status === "error" ? (best.error ?? best.outcome) : null,
      details: {
        input,
        rejected: null,
        checkedAt,
        attempts: attempts.map(toRecord),
        tls,
        parked: {
          score: parked.score,
          threshold: parked.threshold,
          kind: judged ? parked.kind : null,
          evidence: parked.evidence,
          randomPath,
        },
        botProtection: parked.botProtection,
        body: page ? { bytes: page.body.length, cut: page.bodyTruncated || null } : null,
        timings: sumTimings(best),
        resolvedAddress: best.hops[0]?.address ?? null,
        certificate: certificateOf(finalUrl, tls, best.last),
      },
    };
  }
}

function certificateOf(
  finalUrl: string,
  tls: TlsInfo | null,
  last: Attempt["last"],
): CertificateSummary | null {
  if (!finalUrl.startsWith("https:") || !tls || tls.validTo === null) return null;
  return {
    issuer: tls.issuer,
    notAfter: tls.validTo,
    daysToExpiry: tls.daysToExpiry,
    hsts: last?.ok === true && typeof last.headers["strict-transport-security"] === "string",
  };
}

/** The most informative attempt: a response beats a timeout beats an error; ties go to the earlier. */
function bestAttempt(attempts: Attempt[]): Attempt {
  return attempts.reduce((a, b) => (rank(b.outcome) > rank(a.outcome) ? b : a));
}

/** Same page: same title and visible text, and (for pages without text) the same script sources. */
function samePage(a: string, b: string): boolean {
  const fa = scanHtml(a);
  const fb = scanHtml(b);
  if (fa.title !== fb.title || fa.text.slice(0, 4000) !== fb.text.slice(0, 4000)) return false;
  if (fa.text !== "" || fa.title !== "") return true;
  const scripts = (refs: typeof fa.refs) =>
    refs
      .filter((r) => r.element === "script")
      .map((r) => r.url)
      .join(" ");
  return scripts(fa.refs) === scripts(fb.refs) && fa.inlineScript.length > 0 === fb.inlineScript.length > 0;
}

function rejected(input: string, site: Extract<NormalizedWebsite, { ok: false }>, checkedAt: string) {
  const result: WebsiteCheckResult = {
    website: input,
    status: "error",
    valid: false,
    httpStatus: null,
    finalUrl: "",
    sslValid: null,
    isParked: null,
    responseTimeMs: 0,
    bodyComplete: null,
    redirectChain: [],
    error: site.message,
    details: {
      input,
      rejected: site.reason,
      checkedAt,
      attempts: [],
      tls: null,
      parked: { score: 0, threshold: 0, kind: null, evidence: [], randomPath: null },
      botProtection: false,
      timings: { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null, totalMs: 0 },
      resolvedAddress: null,
    },
  };
  return result;
}

function toRecord(a: Attempt): AttemptRecord {
  const { step, because, url, timeoutMs, outcome, httpStatus, error, durationMs, hops } = a;
  return { step, because, url, timeoutMs, outcome, httpStatus, error, durationMs, hops };
}

function finalTls(best: Attempt, attempts: Attempt[]): TlsInfo | null {
  if (best.last?.tls) return best.last.tls;
  for (const a of [...attempts].reverse()) if (a.last?.tls) return a.last.tls;
  return null;
}

function sumTimings(a: Attempt): HttpTimings {
  const sum = (key: "dnsMs" | "connectMs" | "tlsMs" | "firstByteMs") => {
    const values = a.hops.map((h) => h.timings[key]).filter((v): v is number => v !== null);
    return values.length > 0 ? Math.round(values.reduce((x, y) => x + y, 0) * 10) / 10 : null;
  };
  return {
    dnsMs: sum("dnsMs"),
    connectMs: sum("connectMs"),
    tlsMs: sum("tlsMs"),
    firstByteMs: sum("firstByteMs"),
    totalMs: a.durationMs,
  };
}

function withScheme(url: string, scheme: "http" | "https"): string {
  const u = new URL(url);
  u.protocol = `${scheme}:`;
  return u.href;
}

function wwwVariant(site: Extract<NormalizedWebsite, { ok: true }>): string | null {
  if (site.isIpLiteral || site.host.startsWith("www.")) return null;
  const u = new URL(site.url);
  u.hostname = `www.${site.host}`;
  return u.href;
}

/** The answer if it arrives within `leftMs`, `lateValue` otherwise (the check never waits past its
 *  deadline). */
async function withinDeadline<T>(facts: Promise<T>, leftMs: number, lateValue: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(lateValue), Math.max(0, leftMs));
  });
  try {
    return await Promise.race([facts, late]);
  } finally {
    clearTimeout(timer);
  }
}
