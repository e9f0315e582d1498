// One attempt of the website strategy: GET a URL and follow its redirects by hand, each hop a
// fresh guarded exchange (resolve, SSRF check, connect to the checked address), within one budget.
import type { HttpClient, HttpFailure, HttpOutcome } from "../../net/http-client.js";
import type { AttemptOutcome, HopRecord } from "./website.types.js";

export interface ProbeOptions {
  maxRedirects: number;
  maxBodyBytes: number;
  /** Cap on reading the body; undefined: the attempt's own budget (the whole exchange). */
  bodyTimeoutMs?: number | undefined;
  /** Monotonic milliseconds (the engine's time source). */
  nowMs: () => number;
}

export interface ProbeResult {
  outcome: AttemptOutcome;
  error: string | null;
  httpStatus: number | null;
  hops: HopRecord[];
  /** The last exchange, kept for parked detection (body, headers, TLS). */
  last: HttpOutcome | null;
  durationMs: number;
}

const FAILURE_OUTCOME: Record<HttpFailure, AttemptOutcome> = {
  dns: "dns_error",
  blocked: "blocked",
  refused: "refused",
  unreachable: "unreachable",
  timeout: "timeout",
  tls: "tls_error",
  reset: "network_error",
  protocol: "network_error",
  error: "network_error",
};

const isRedirect = (status: number) => status >= 300 && status < 400 && status !== 304;

export async function probeUrl(
  client: HttpClient,
  startUrl: string,
  timeoutMs: number,
  options: ProbeOptions,
  signal?: AbortSignal,
): Promise<ProbeResult> {
  const now = options.nowMs;
  const started = now();
  const hops: HopRecord[] = [];
  const seen = new Set<string>();
  let url = new URL(startUrl);
  let last: HttpOutcome | null = null;
  const end = (outcome: AttemptOutcome, error: string | null): ProbeResult => ({
    outcome,
    error,
    httpStatus: last?.ok ? last.status : null,
    hops,
    last,
    durationMs: Math.round(now() - started),
  });

  for (;;) {
    seen.add(url.href);
    const left = timeoutMs - (now() - started);
    if (left <= 0) return end("timeout", `no final response within ${timeoutMs} ms`);
    last = await client.request({
      url,
      timeoutMs: left,
      ...(options.bodyTimeoutMs !== undefined
        ? { bodyTimeoutMs: Math.min(options.bodyTimeoutMs, left) }
        : {}),
      maxBodyBytes: options.maxBodyBytes,
      wantsBody: (status) => !isRedirect(status),
      ...(signal ? { signal } : {}),
    });
    hops.push({
      url: url.href,
      status: last.ok ? last.status : null,
      address: last.address ?? null,
      failure: last.ok ? null : last.failure,
      timings: last.timings,
    });
    if (!last.ok) return end(FAILURE_OUTCOME[last.failure], last.message);
    const { status } = last;
    const location = last.headers.location;
    if (isRedirect(status) && location) {
      if (hops.length > options.maxRedirects) {
        return end("too_many_redirects", `more than ${options.maxRedirects} redirects`);
      }
      const next = nextUrl(location, url);
      if (typeof next === "string") return end("bad_redirect", next);
      if (seen.has(next.href)) return end("redirect_loop", `redirect loop back to ${next.href}`);
      url = next;
      continue;
    }
    const outcome = classifyStatus(status);
    // A success status and then not one byte of the page before the budget ran out: no page was
    // served. (An error status is the answer whatever its body does.)
    if (outcome === "ok" && last.bodyTruncated === "timeout" && last.body.length === 0)
      return end("timeout", `status ${status} arrived, then none of the page within ${timeoutMs} ms`);
    return end(outcome, null);
  }
}

function nextUrl(location: string, base: URL): URL | string {
  let next: URL;
  try {
    next = new URL(location, base);
  } catch {
    return `invalid redirect target ${JSON.stringify(location.slice(0, 200))}`;
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    return `redirect to unsupported scheme ${next.protocol}`;
  }
  if (next.username || next.password) return "redirect target carries credentials";
  next.hash = "";
  return next;
}

function classifyStatus(status: number): AttemptOutcome {
  if (status >= 200 && status < 400) return "ok";
  if (status === 404) return "not_found";
  if (status >= 400 && status < 500) return "client_error";
  if (status >= 500 && status < 600) return "server_error";
  return "network_error";
}
