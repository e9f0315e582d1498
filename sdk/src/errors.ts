// Every failure of an SDK call is a LeadcheckError. API errors carry the service's one error body
// (`error`, `error_code`, `message`, `details`); failures on the client side use status 0 and the
// codes below, so callers branch on one property either way.
import type { ErrorBody } from "./api-types.js";

/** Codes the client raises itself (status 0); the API's own codes come from its error body. */
export type ClientErrorCode =
  | "NETWORK_ERROR"
  | "REQUEST_TIMEOUT"
  | "WAIT_TIMEOUT"
  | "INVALID_RESPONSE"
  | "MISSING_CREDENTIALS";

export interface LeadcheckErrorInit {
  status: number;
  errorCode: string;
  message: string;
  details?: Record<string, unknown>;
  body?: unknown;
  requestId?: string | undefined;
  retryAfterSeconds?: number | undefined;
  cause?: unknown;
}

export class LeadcheckError extends Error {
  override readonly name = "LeadcheckError";
  /** HTTP status; 0 when the request never got an HTTP answer or the client gave up. */
  readonly status: number;
  /** The API's `error_code` (e.g. PAYMENT_REQUIRED, RATE_LIMIT_EXCEEDED) or a ClientErrorCode. */
  readonly errorCode: string;
  readonly details: Record<string, unknown>;
  /** The parsed response body (the text when it was not JSON); undefined without a response. */
  readonly body: unknown;
  /** The X-Request-Id the service answered with: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** From Retry-After on 429 and 503 answers. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: LeadcheckErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.details = init.details ?? {};
    this.body = init.body;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** The service's error body, when the answer had one. */
  get errorBody(): ErrorBody | undefined {
    return isErrorBody(this.body) ? this.body : undefined;
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { error_code?: unknown }).error_code === "string"
  );
}

/** Builds the error for a non-2xx answer from its status, headers and (parsed) body. */
export function errorFromResponse(
  status: number,
  statusText: string,
  headers: Headers,
  body: unknown,
  nowMs: number = Date.now(),
): LeadcheckError {
  const requestId = headers.get("x-request-id") ?? undefined;
  const retryAfterMs = parseRetryAfterMs(headers.get("retry-after"), nowMs);
  const common = {
    status,
    body,
    requestId,
    retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
  };
  if (isErrorBody(body)) {
    return new LeadcheckError({
      ...common,
      errorCode: body.error_code,
      message: body.message || body.error,
      details: body.details ?? {},
    });
  }
  // Not our error body: a proxy or load balancer answered. Keep what it said.
  return new LeadcheckError({
    ...common,
    errorCode: `HTTP_${status}`,
    message: `HTTP ${status}${statusText ? ` ${statusText}` : ""}`,
  });
}

/** Retry-After as milliseconds from now: delta-seconds or an HTTP date; undefined when absent or bad. */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date always names its weekday or month; Date.parse alone would read "-5" as a year.
  if (!/[a-z]{3}/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
