// Test mode's website check (ADR 0051, docs/test-mode.md): a result from the host name alone,
// made without a DNS query or a connection. A magic domain (or any subdomain of one) names the
// answer; every other site is active over valid HTTPS. The result has a live result's shape, one
// attempt with one hop, and details.attempts[0].error says it is scripted.
import type { Clock } from "../../lib/clock.js";
import type { HttpFailure } from "../../net/http-client.js";
import { normalizeWebsite } from "../website/normalize.js";
import { PARKED_THRESHOLD } from "../website/parked.js";
import type { AttemptOutcome, WebsiteCheckResult } from "../website/website.types.js";

type ScriptedSite = "active" | "parked" | "down" | "broken" | "timeout" | "expired_tls" | "nxdomain" | "slow";

/** Magic domains: the site and its subdomains answer as named. */
const MAGIC_SITES: Readonly<Record<string, ScriptedSite>> = {
  "parked.example": "parked",
  "down.example": "down",
  "broken.example": "broken",
  "timeout.example": "timeout",
  "expired-tls.example": "expired_tls",
  "nxdomain.example": "nxdomain",
  "slow.example": "slow",
};

function scriptedSiteOf(host: string): ScriptedSite {
  const lower = host.toLowerCase().replace(/\.$/, "");
  for (const [domain, site] of Object.entries(MAGIC_SITES))
    if (lower === domain || lower.endsWith(`.${domain}`)) return site;
  return "active";
}

interface Shape {
  status: WebsiteCheckResult["status"];
  outcome: AttemptOutcome;
  httpStatus: number | null;
  failure: HttpFailure | null;
  https: boolean;
  error: string | null;
}

const SHAPES: Record<ScriptedSite, Shape> = {
  active: { status: "active", outcome: "ok", httpStatus: 200, failure: null, https: true, error: null },
  slow: { status: "active", outcome: "ok", httpStatus: 200, failure: null, https: true, error: null },
  parked: { status: "active", outcome: "ok", httpStatus: 200, failure: null, https: true, error: null },
  expired_tls: { status: "active", outcome: "ok", httpStatus: 200, failure: null, https: false, error: null },
  broken: {
    status: "inactive",
    outcome: "server_error",
    httpStatus: 503,
    failure: null,
    https: true,
    error: "server_error: HTTP 503",
  },
  timeout: {
    status: "inactive",
    outcome: "timeout",
    httpStatus: null,
    failure: "timeout",
    https: true,
    error: "timeout: no answer in time",
  },
  down: {
    status: "error",
    outcome: "refused",
    httpStatus: null,
    failure: "refused",
    https: true,
    error: "refused: connection refused",
  },
  nxdomain: {
    status: "error",
    outcome: "dns_error",
    httpStatus: null,
    failure: "dns",
    https: true,
    error: "dns_error: the domain does not exist (ENOTFOUND)",
  },
};

const SLOW_MS = 5_000;
const DAY_MS = 86_400_000;

export class ScriptedWebsite {
  constructor(private readonly deps: { clock: Clock; slowMs?: number }) {}

  async check(input: string, options: { signal?: AbortSignal } = {}): Promise<WebsiteCheckResult> {
    const site = normalizeWebsite(input);
    const now = this.deps.clock.now();
    const host = site.ok ? new URL(site.url).hostname : "";
    const kind = site.ok ? scriptedSiteOf(host) : "nxdomain";
    if (kind === "slow") await sleep(this.deps.slowMs ?? SLOW_MS, options.signal);
    const shape = SHAPES[kind];
    const url = site.ok ? site.url : String(input);
    const finalUrl = shape.https ? url.replace(/^http:/, "https:") : url.replace(/^https:/, "http:");
    const reached = shape.httpStatus !== null;
    const parked = kind === "parked";
    const timings = { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null, totalMs: 0 };
    return {
      website: url,
      status: shape.status,
      valid: shape.status === "active",
      httpStatus: shape.httpStatus,
      finalUrl,
      sslValid: reached ? shape.https : null,
      isParked: reached ? parked : null,
      responseTimeMs: 0,
      bodyComplete: reached ? true : null,
      redirectChain: url === finalUrl ? [url] : [url, finalUrl],
      error: shape.error,
      details: {
        input: String(input),
        rejected: null,
        checkedAt: now.toISOString(),
        attempts: [
          {
            step: "initial",
            because: null,
            url: finalUrl,
            timeoutMs: 0,
            outcome: shape.outcome,
            httpStatus: shape.httpStatus,
            error: `test mode: scripted answer (${kind}); no DNS query or connection was made`,
            durationMs: 0,
            hops: [
              { url: finalUrl, status: shape.httpStatus, address: null, failure: shape.failure, timings },
            ],
          },
        ],
        tls: null,
        parked: {
          score: parked ? 100 : 0,
          threshold: PARKED_THRESHOLD,
          kind: parked ? "parked" : null,
          evidence: parked
            ? [
                {
                  signal: "page",
                  value: "test mode: parked.example",
                  provider: "test-mode",
                  type: "parking_lander",
                  strength: "strong",
                  weight: 100,
                  source: "test-mode",
                },
              ]
            : [],
          randomPath: null,
        },
        botProtection: false,
        body: reached ? { bytes: 0, cut: null } : null,
        timings,
        resolvedAddress: null,
        certificate:
          kind === "expired_tls"
            ? {
                issuer: "leadcheck test mode",
                notAfter: new Date(now.getTime() - 30 * DAY_MS).toISOString(),
                daysToExpiry: -30,
                hsts: false,
              }
            : reached && shape.https
              ? {
                  issuer: "leadcheck test mode",
                  notAfter: new Date(now.getTime() + 90 * DAY_MS).toISOString(),
                  daysToExpiry: 90,
                  hsts: false,
                }
              : null,
        domainIntel: null,
      },
    };
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
