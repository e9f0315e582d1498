// Wire shape of a website check (spec "Website check result") plus the details that explain it.
import type { DomainStanding } from "../../intel/intel.types.js";
import type { HttpFailure, HttpTimings, TlsInfo } from "../../net/http-client.js";
import type { WebsiteRejection } from "./normalize.js";
import type { ParkedEvidence, ParkedKind } from "./parked.js";

export type WebsiteStatus = "active" | "inactive" | "error";

/** A website as the checks take it (https://host/…), or why it is not one. */
export type WebsiteNormalizer = (input: string) => { ok: true; url: string } | { ok: false; message: string };

/** What checks websites for the rest of the code: the engine, guarded by the network health. */
export interface WebsiteChecker {
  /** `accountId`: the data space the check is for (a test space's checks are scripted, ADR 0051). */
  check(input: string, options?: { signal?: AbortSignal; accountId?: string }): Promise<WebsiteCheckResult>;
}

export interface WebsiteCheckResult {
  /** The URL that was validated (the normalized input, or the fallback that answered). */
  website: string;
  status: WebsiteStatus;
  valid: boolean;
  /** Status of the last hop; null when no HTTP response was received. */
  httpStatus: number | null;
  finalUrl: string;
  /**
   * True only when the final URL is https and its certificate verified; false when a server was
   * reached but offers no working HTTPS (http only, or a certificate problem); null when no server
   * was reached at all (DNS failure, every connection refused, unreachable or timed out).
   */
  sslValid: boolean | null;
  /** Parked, for sale or placeholder; null when no HTTP response arrived, so no page was judged. */
  isParked: boolean | null;
  /** Wall-clock milliseconds of the whole check, every attempt included, each exchange measured to
   *  the end of its body (or to the moment the attempt's budget cut it: see bodyComplete). */
  responseTimeMs: number;
  /**
   * Whether the answering page arrived whole: true when its body ended (or filled the bytes read
   * for parked detection), false when the server stopped sending or the attempt's budget ran out
   * first (details.body.cut says which; responseTimeMs is then a lower bound), null when no page
   * was received.
   */
  bodyComplete: boolean | null;
  /** Every URL requested in the answering attempt, in order: the first is `website`, the last `finalUrl`. */
  redirectChain: string[];
  error: string | null;
  details: WebsiteCheckDetails;
}

/** How an attempt (one URL followed through its redirects) ended. */
export type AttemptOutcome =
  | "ok"
  | "not_found"
  | "client_error"
  | "server_error"
  | "timeout"
  | "tls_error"
  | "dns_error"
  | "refused"
  | "unreachable"
  | "blocked"
  | "redirect_loop"
  | "too_many_redirects"
  | "bad_redirect"
  | "network_error";

export type AttemptStep = "initial" | "retry" | "fallback_http" | "fallback_www";

export interface HopRecord {
  url: string;
  status: number | null;
  address: string | null;
  failure: HttpFailure | null;
  timings: HttpTimings;
}

export interface AttemptRecord {
  step: AttemptStep;
  /** The outcome of the previous attempt that led to this one; null for the first. */
  because: AttemptOutcome | null;
  url: string;
  timeoutMs: number;
  outcome: AttemptOutcome;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  hops: HopRecord[];
}

interface WebsiteCheckDetails {
  input: string;
  /** Set when the input was refused before any network work (the API answers 422). */
  rejected: WebsiteRejection | null;
  checkedAt: string;
  attempts: AttemptRecord[];
  /** Certificate of the final hop, else of the last HTTPS handshake seen. */
  tls: TlsInfo | null;
  parked: {
    score: number;
    threshold: number;
    /** `parked` (parking lander, for sale) or `placeholder` (default or holding page); null when not parked. */
    kind: ParkedKind | null;
    evidence: ParkedEvidence[];
    /** Whether a random path was requested as corroboration, and whether it served the same page. */
    randomPath: { url: string; samePage: boolean } | null;
  };
  botProtection: boolean;
  /** The answering page's body: bytes kept and why reading stopped early; null when no page arrived. */
  body?: { bytes: number; cut: "size" | "timeout" | "aborted" | null } | null;
  /** Phases summed over the hops of the answering attempt; totalMs is that attempt's duration. */
  timings: HttpTimings;
  resolvedAddress: string | null;
  /** The certificate summary of the final HTTPS hop; null when the site was not reached over HTTPS. */
  certificate?: CertificateSummary | null;
  /** Registration and domain-list reputation of the site's registrable domain; null when not looked up. */
  domainIntel?: DomainStanding | null;
  /** Set when the check was not made, or its DNS answers not believed, because a network path of
   *  this service is down (GET /v1/status); status is then `error`, never a verdict on the site. */
  unavailable?: { reason: "resolver_unavailable"; message: string };
}

export interface CertificateSummary {
  issuer: string | null;
  /** The certificate's notAfter (ISO 8601). */
  notAfter: string | null;
  /** Whole days until notAfter; negative once expired. */
  daysToExpiry: number | null;
  /** The final HTTPS response sent Strict-Transport-Security (RFC 6797). */
  hsts: boolean;
}
