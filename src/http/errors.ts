// One closed set of error codes, one status per code, one body shape everywhere (decisions §7).
// Every failure, Fastify's own included, leaves the service through `toErrorResponse`.
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

export type ErrorCode =
  | "BAD_REQUEST"
  | "INVALID_JSON"
  | "DUPLICATE_LEAD"
  | "UNAUTHORIZED"
  | "INVALID_API_KEY"
  | "PAYMENT_REQUIRED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "VALIDATION_ERROR"
  | "RATE_LIMIT_EXCEEDED"
  | "CONCURRENT_BATCH_LIMIT"
  | "DAILY_LIMIT_EXCEEDED"
  | "INTERNAL_ERROR"
  | "SERVICE_UNAVAILABLE";

export function statusOf(code: ErrorCode): number {
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
      return 403;
    case "NOT_FOUND":
      return 404;
    case "METHOD_NOT_ALLOWED":
      return 405;
    case "CONFLICT":
      return 409;
    case "PAYLOAD_TOO_LARGE":
      return 413;
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

const SHORT_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
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
    { errors },
    {
      detail: errors.map((e) => ({
        loc: ["body", ...e.field.split(".").filter(Boolean)],
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
) {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError(
    code,
    message,
    { retry_after: seconds },
    { retry_after: seconds },
    { "Retry-After": String(seconds) },
  );
}

function body(err: AppError): ErrorBody {
  return {
    error: SHORT_TEXT[err.status] ?? "Error",
    error_code: err.code,
    message: err.message,
    details: err.details,
    ...err.extra,
  };
}

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Fastify schema errors (AJV) into field errors named like `body.leads.0.email` -> `leads.0.email`. */
function fieldErrorsOf(err: FastifyError): FieldError[] {
  const list = (err.validation ?? []) as AjvError[];
  const context = err.validationContext ?? "body";
  return list.map((v) => {
    let field = (v.instancePath ?? "").replace(/^\//, "").replaceAll("/", ".");
    const missing = v.params?.missingProperty;
    if (v.keyword === "required" && typeof missing === "string")
      field = field ? `${field}.${missing}` : missing;
    const extra = v.params?.additionalProperty;
    if (v.keyword === "additionalProperties" && typeof extra === "string")
      field = field ? `${field}.${extra}` : extra;
    const name = field || context;
    return {
      field: context === "body" ? name : `${context}.${name}`.replace(/\.$/, ""),
      message: v.keyword === "required" ? "is required" : (v.message ?? "is invalid"),
      type: v.keyword ?? "invalid",
    };
  });
}

/** Maps any thrown value to an AppError; unknown errors become a generic 500 that leaks nothing. */
export function toAppError(error: unknown): { appError: AppError; unexpected: boolean } {
  if (error instanceof AppError) return { appError: error, unexpected: false };
  const err = error as FastifyError & { type?: string };
  if (err?.validation) {
    return { appError: validationError(fieldErrorsOf(err)), unexpected: false };
  }
  switch (err?.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return { appError: new AppError("INVALID_JSON", "Request body is not valid JSON"), unexpected: false };
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return {
        appError: new AppError(
          "INVALID_JSON",
          "Body cannot be empty when content-type is set to 'application/json'",
        ),
        unexpected: false,
      };
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return { appError: new AppError("PAYLOAD_TOO_LARGE", "Request body is too large"), unexpected: false };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return {
        appError: new AppError("UNSUPPORTED_MEDIA_TYPE", "Unsupported content type; send application/json"),
        unexpected: false,
      };
  }
  // JSON.parse errors surfaced by a content-type parser, and other 4xx Fastify raised itself.
  if (err instanceof SyntaxError) {
    return { appError: new AppError("INVALID_JSON", "Request body is not valid JSON"), unexpected: false };
  }
  if (typeof err?.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 500) {
    return { appError: new AppError("BAD_REQUEST", err.message || "Bad request"), unexpected: false };
  }
  return { appError: new AppError("INTERNAL_ERROR", "An unexpected error occurred"), unexpected: true };
}

export function sendError(reply: FastifyReply, appError: AppError): FastifyReply {
  for (const [k, v] of Object.entries(appError.headers)) reply.header(k, v);
  return reply.status(appError.status).type("application/json; charset=utf-8").send(body(appError));
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { appError, unexpected } = toAppError(error);
  if (unexpected) request.log.error({ err: error, reqId: request.id }, "unhandled error");
  return sendError(reply, appError);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(
    reply,
    new AppError("NOT_FOUND", `Route ${request.method} ${request.url.split("?")[0]} not found`),
  );
}
