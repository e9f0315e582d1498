// One HTTP exchange with the API: credentials, JSON in and out, per-request timeout, and bounded
// retries of answers that say "try again later" (429, optionally 503) after their Retry-After.
import { errorFromResponse, LeadcheckError, parseRetryAfterMs } from "./errors.js";

export const SDK_VERSION = "0.1.0";

export interface ClientOptions {
  /** Where the API lives, e.g. "https://api.example.com" (a path prefix is kept). */
  baseUrl: string;
  /** Sent as X-API-Key on data endpoints. */
  apiKey?: string | undefined;
  /** Identity-provider bearer token: required for API key management, used for data without apiKey. */
  token?: string | undefined;
  /**
   * In a browser signed in through single sign-on: the session cookie authenticates every call
   * (no credential header), and state-changing calls send the session's CSRF token.
   */
  cookieSession?: { csrfToken: string } | undefined;
  /** Sent on every request, e.g. `{ "x-account-id": "acct_..." }` to act in another account. */
  headers?: Record<string, string> | undefined;
  /** Retries after a 429 (and a 503 when retryOn503); 0 turns retries off. Default 3. */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited for: the 429 is thrown at once. Default 60 s. */
  maxRetryWaitMs?: number;
  /** Also retry 503 answers, for idempotent methods only (GET, PUT, DELETE). Default false. */
  retryOn503?: boolean;
  /** Per attempt; the email check can hold a request for up to its own `timeout`. Default 90 s. */
  timeoutMs?: number;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** How the client waits between retries and polls (tests pass a fake clock). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock for wait deadlines, in ms since the epoch. Default Date.now. */
  now?: () => number;
  userAgent?: string;
}

export type Auth = "data" | "identity" | "none";

export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  auth?: Auth;
  query?: Record<string, unknown> | undefined;
  /** JSON-encoded unless `rawBody` is given. */
  body?: unknown;
  rawBody?: { contentType: string; data: string | Uint8Array };
  accept?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

const IDEMPOTENT = new Set(["GET", "PUT", "DELETE"]);
const MIN_503_BACKOFF_MS = 500;

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export class Transport {
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now: () => number;
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError("baseUrl is required");
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? abortableSleep;
    this.now = options.now ?? Date.now;
  }

  /** Sends the request and returns the parsed JSON of a 2xx answer; throws LeadcheckError. */
  async json<T>(spec: RequestSpec, call: CallOptions = {}): Promise<T> {
    const res = await this.send(spec, call);
    const text = await res.text();
    const isJson = (res.headers.get("content-type") ?? "").includes("json");
    try {
      if (!isJson) throw new TypeError(`content-type ${res.headers.get("content-type")}`);
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new LeadcheckError({
        status: res.status,
        errorCode: "INVALID_RESPONSE",
        message: `${spec.method} ${spec.path} did not answer with JSON`,
        body: text,
        requestId: res.headers.get("x-request-id") ?? undefined,
        cause,
      });
    }
  }

  /** Sends the request and returns the text of a 2xx answer (CSV exports). */
  async text(spec: RequestSpec, call: CallOptions = {}): Promise<string> {
    return (await this.send(spec, call)).text();
  }

  /** Sends the request, retrying as configured, and returns the 2xx Response unread. */
  async send(spec: RequestSpec, call: CallOptions = {}): Promise<Response> {
    const maxRetries = this.options.maxRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      const res = await this.attempt(spec, call.signal);
      if (res.ok) return res;
      const body = await readBody(res);
      const error = errorFromResponse(res.status, res.statusText, res.headers, body, this.now());
      const waitMs = attempt < maxRetries ? this.retryWaitMs(spec, res, attempt) : undefined;
      if (waitMs === undefined) throw error;
      await this.sleep(waitMs, call.signal);
    }
  }

  private retryWaitMs(spec: RequestSpec, res: Response, attempt: number): number | undefined {
    const given = parseRetryAfterMs(res.headers.get("retry-after"), this.now());
    const maxWaitMs = this.options.maxRetryWaitMs ?? 60_000;
    let waitMs: number | undefined;
    // A 429 is refused before the route runs, so nothing was done or charged: any method may repeat.
    if (res.status === 429) waitMs = given ?? 1000;
    // A 503 may come after the work started (a proxy timing out): repeat only what is idempotent.
    else if (res.status === 503 && this.options.retryOn503 && IDEMPOTENT.has(spec.method))
      waitMs = given ?? MIN_503_BACKOFF_MS * 2 ** attempt;
    return waitMs !== undefined && waitMs <= maxWaitMs ? waitMs : undefined;
  }

  private async attempt(spec: RequestSpec, signal: AbortSignal | undefined): Promise<Response> {
    const timeoutMs = this.options.timeoutMs ?? 90_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      accept: spec.accept ?? "application/json",
      "user-agent": this.options.userAgent ?? `leadcheck-sdk/${SDK_VERSION}`,
      ...this.options.headers,
      ...this.authHeaders(spec.auth ?? "data", spec.method),
    };
    let body: RequestInit["body"];
    if (spec.rawBody) {
      headers["content-type"] = spec.rawBody.contentType;
      // The DOM's BodyInit (browsers) names only ArrayBuffer-backed views; fetch takes any Uint8Array.
      body = spec.rawBody.data as RequestInit["body"];
    } else if (spec.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(spec.body);
    }
    try {
      return await this.fetchImpl(this.url(spec.path, spec.query), {
        method: spec.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: combined,
      });
    } catch (cause) {
      if (signal?.aborted) throw cause;
      const timedOut = timeout.aborted;
      throw new LeadcheckError({
        status: 0,
        errorCode: timedOut ? "REQUEST_TIMEOUT" : "NETWORK_ERROR",
        message: timedOut
          ? `${spec.method} ${spec.path} got no answer within ${timeoutMs} ms`
          : `${spec.method} ${spec.path} failed: ${networkReason(cause)}`,
        cause,
      });
    }
  }

  private authHeaders(auth: Auth, method: RequestSpec["method"]): Record<string, string> {
    const { apiKey, token, cookieSession } = this.options;
    if (auth === "none") return {};
    if (auth === "data" && apiKey) return { "x-api-key": apiKey };
    if (token) return { authorization: `Bearer ${token}` };
    // The browser attaches the cookie itself; a page of another origin cannot read this token.
    if (cookieSession) return method === "GET" ? {} : { "x-csrf-token": cookieSession.csrfToken };
    throw new LeadcheckError({
      status: 0,
      errorCode: "MISSING_CREDENTIALS",
      message:
        auth === "identity"
          ? "API key management needs an identity token: pass `token` to the client"
          : "Pass `apiKey` or `token` to the client",
    });
  }

  private url(path: string, query: Record<string, unknown> | undefined): string {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
    }
    return url.toString();
  }
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text().catch(() => "");
  if (!(res.headers.get("content-type") ?? "").includes("json")) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** fetch says "fetch failed"; the useful part (ECONNREFUSED, ENOTFOUND, ...) is in its cause. */
function networkReason(error: unknown): string {
  const inner = (error as { cause?: { code?: string; message?: string } })?.cause;
  return inner?.code ?? inner?.message ?? (error as Error)?.message ?? String(error);
}

/** A path segment from a caller-supplied id. */
export function segment(id: string): string {
  return encodeURIComponent(id);
}
