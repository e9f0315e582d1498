// One closed set of error codes, one status per code, one body shape everywhere (decisions §7).
// Every failure, Fastify's own included, leaves the service through `errorHandler`.
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import {
  AppError,
  type ErrorBody,
  type FieldError,
  paymentRequired,
  rateLimited,
  SHORT_TEXT,
  validationError,
} from "../lib/errors.js";
import { type LimitRefusal, LimitRefused } from "../lib/limits.js";
import { isBackendUnavailable } from "../lib/unavailable.js";

export * from "../lib/errors.js";

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

/** The response of each limit refusal (src/lib/limits.ts): the one place they become HTTP errors. */
export function refusalError(refusal: LimitRefusal): AppError {
  switch (refusal.kind) {
    case "insufficient_credits":
      return paymentRequired(refusal.requiredMilli, refusal.availableMilli);
    case "rate_limited":
      return rateLimited(`Rate limit exceeded: ${refusal.label}`, refusal.retryAfterMs / 1000);
    case "concurrent_batch_limit":
      return rateLimited(
        `At most ${refusal.limit} batches may run at once; wait for one to finish`,
        refusal.retryAfterSeconds,
        "CONCURRENT_BATCH_LIMIT",
        { limit: refusal.limit },
      );
    case "daily_limit":
      return rateLimited(
        `At most ${refusal.limit} validations per account per day`,
        refusal.retryAfterSeconds,
        "DAILY_LIMIT_EXCEEDED",
        { limit: refusal.limit },
      );
    case "webhook_limit":
      return new AppError("CONFLICT", `An account may register at most ${refusal.limit} webhooks`, {
        limit: refusal.limit,
      });
  }
}

/** Maps any thrown value to an AppError; unknown errors become a generic 500 that leaks nothing. */
export function toAppError(error: unknown): { appError: AppError; unexpected: boolean } {
  if (error instanceof AppError) return { appError: error, unexpected: false };
  if (error instanceof LimitRefused) return { appError: refusalError(error.refusal), unexpected: false };
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
  }
  // JSON.parse errors surfaced by a content-type parser, and other 4xx Fastify or its plugins raised
  // (a multipart file over the size limit is a 413, like a body over it).
  if (err instanceof SyntaxError) {
    return { appError: new AppError("INVALID_JSON", "Request body is not valid JSON"), unexpected: false };
  }
  switch (err?.statusCode) {
    case 413:
      return { appError: new AppError("PAYLOAD_TOO_LARGE", "Request body is too large"), unexpected: false };
    case 415:
      return {
        appError: new AppError("UNSUPPORTED_MEDIA_TYPE", "Unsupported content type; send application/json"),
        unexpected: false,
      };
  }
  if (typeof err?.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 500) {
    return { appError: new AppError("BAD_REQUEST", err.message || "Bad request"), unexpected: false };
  }
  // The database is restarting or unreachable: the client may retry, this is not a bug of ours.
  if (isBackendUnavailable(error)) {
    return {
      appError: new AppError(
        "SERVICE_UNAVAILABLE",
        "The service cannot reach its database right now; retry shortly",
        {},
        {},
        { "Retry-After": "5" },
      ),
      unexpected: false,
    };
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
  else if (appError.code === "SERVICE_UNAVAILABLE") {
    request.log.warn({ err: error, reqId: request.id }, "answered 503: a backing service is unavailable");
  }
  return sendError(reply, appError);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(
    reply,
    new AppError("NOT_FOUND", `Route ${request.method} ${request.url.split("?")[0]} not found`),
  );
}
