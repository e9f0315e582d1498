// The closed set of error codes and the error services raise for expected failures. The HTTP
// layer (src/http/errors.ts) turns them, and everything else, into the one error body.

export type ErrorCode =
  | "BAD_REQUEST"
  | "INVALID_JSON"
  | "DUPLICATE_LEAD"
  | "UNAUTHORIZED"
  | "INVALID_API_KEY"
  | "PAYMENT_REQUIRED"
  | "FORBIDDEN"
  | "INSUFFICIENT_PERMISSIONS"
  | "IP_NOT_ALLOWED"
  | "ORIGIN_NOT_ALLOWED"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "URI_TOO_LONG"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "VALIDATION_ERROR"
  | "RATE_LIMIT_EXCEEDED"
  | "CONCURRENT_BATCH_LIMIT"
  | "DAILY_LIMIT_EXCEEDED"
  | "INTERNAL_ERROR"
  | "SERVICE_UNAVAILABLE";

function statusOf(code: ErrorCode): number {
  switch (code) {
    case "BAD_REQUEST":
    case "INVALID_JSON":
    case "DUPLICATE_LEAD":
      return 400;
    case "UNAUTHORIZED":
    case "INVALID_API_KEY":
      return 401;
    case "PAYMENT_REQUIRED":
      return 402;
    case "FORBIDDEN":
    case "INSUFFICIENT_PERMISSIONS":
    case "IP_NOT_ALLOWED":
    case "ORIGIN_NOT_ALLOWED":
      return 403;
    case "NOT_FOUND":
      return 404;
    case "METHOD_NOT_ALLOWED":
      return 405;
    case "CONFLICT":
      return 409;
    case "PAYLOAD_TOO_LARGE":
      return 413;
    case "URI_TOO_LONG":
      return 414;
    case "UNSUPPORTED_MEDIA_TYPE":
      return 415;
    case "VALIDATION_ERROR":
      return 422;
    case "RATE_LIMIT_EXCEEDED":
    case "CONCURRENT_BATCH_LIMIT":
    case "DAILY_LIMIT_EXCEEDED":
      return 429;
    case "INTERNAL_ERROR":
      return 500;
    case "SERVICE_UNAVAILABLE":
      return 503;
  }
}

export const SHORT_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export interface FieldError {
  field: string;
  message: string;
  type: string;
  /** The JSON path for `detail[].loc` (["body", "leads", 0, "email"]); by default "body" then
   *  the dotted `field`. */
  loc?: (string | number)[];
}

export interface ErrorBody {
  error: string;
  error_code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
  /** 422 only: the lead endpoints' `detail` array (FastAPI style). */
  detail?: { loc: (string | number)[]; msg: string; type: string }[];
  /** 402 only. */
  required?: number;
  available?: number;
  displayCreditsRequired?: number;
  displayCreditsAvailable?: number;
  /** 429 only, seconds. */
  retry_after?: number;
}

/** A failure the service means to report: thrown anywhere, answered with its documented body. */
export class AppError extends Error {
  override name = "AppError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly extra: Partial<ErrorBody> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get status(): number {
    return statusOf(this.code);
  }
}

export const notFound = (what: string) => new AppError("NOT_FOUND", `${what} not found`);

export function validationError(errors: FieldError[], message = "Request validation failed"): AppError {
  return new AppError(
    "VALIDATION_ERROR",
    message,
    { errors: errors.map(({ field, message, type }) => ({ field, message, type })) },
    {
      detail: errors.map((e) => ({
        loc: e.loc ?? ["body", ...e.field.split(".").filter(Boolean)],
        msg: e.message,
        type: e.type,
      })),
    },
  );
}

/** 402 body: stored credits with 3 decimals plus display credits (decisions §7). */
export function paymentRequired(requiredMilli: number, availableMilli: number): AppError {
  const required = requiredMilli / 1000;
  const available = availableMilli / 1000;
  return new AppError(
    "PAYMENT_REQUIRED",
    `Insufficient credits: ${required} required, ${available} available`,
    { required, available },
    {
      required,
      available,
      displayCreditsRequired: requiredMilli,
      displayCreditsAvailable: availableMilli,
    },
  );
}

export function rateLimited(
  message: string,
  retryAfterSeconds: number,
  code: ErrorCode = "RATE_LIMIT_EXCEEDED",
  details: Record<string, unknown> = {},
) {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError(
    code,
    message,
    { ...details, retry_after: seconds },
    { retry_after: seconds },
    { "Retry-After": String(seconds) },
  );
}
