// One closed set of error codes, one status per code, one body shape everywhere (decisions §7).
// Every failure, Fastify's own included, leaves the service through `errorHandler`.
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DomainError, type Failure, type FieldError } from "../lib/errors.js";
import { isBackendUnavailable } from "../lib/unavailable.js";
import {
  AppError,
  type ErrorBody,
  paymentRequired,
  rateLimited,
  SHORT_TEXT,
  validationError,
} from "./app-error.js";

export { AppError } from "./app-error.js";

/** The one error body (decisions §7), as every route answers it. */
export function errorBodyOf(err: AppError): ErrorBody {
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
  schemaPath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Fastify's name of each request part, as `field` prefixes it and as `detail.loc` starts. */
const PART_LOC: Record<string, string> = {
  body: "body",
  querystring: "query",
  params: "path",
  headers: "header",
};

/** `/leads/0/email` as ["leads", 0, "email"] (JSON Pointer, RFC 6901). */
function pathOf(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment));
}

const quoted = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** "a, b or c" */
const oneOf = (words: string[]) =>
  words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;

/**
 * One message per failed `anyOf` (TypeBox unions: enums of literals, nullable fields) instead of
 * one per branch: "must be one of: low, normal, high, urgent" rather than four "must be equal
 * to constant". Innermost unions first, so a nullable enum folds into one message too.
 */
function foldUnions(list: AjvError[]): AjvError[] {
  const unions = list
    .filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf")
    .sort((x, y) => (y.schemaPath?.length ?? 0) - (x.schemaPath?.length ?? 0));
  let errors = list;
  for (const union of unions) {
    const isBranch = (e: AjvError) =>
      e !== union &&
      (e.instancePath === union.instancePath || e.instancePath?.startsWith(`${union.instancePath}/`)) &&
      e.schemaPath?.startsWith(`${union.schemaPath}/`);
    const folded = foldUnion(union, errors.filter(isBranch));
    errors = errors.flatMap((e) => (e === union ? folded : isBranch(e) ? [] : [e]));
  }
  return errors;
}

function foldUnion(union: AjvError, branches: AjvError[]): AjvError[] {
  const allowed = branches.flatMap((b) =>
    b.keyword === "const"
      ? [quoted(b.params?.allowedValue)]
      : b.keyword === "enum"
        ? ((b.params?.allowedValues as unknown[]) ?? []).map(quoted)
        : [],
  );
  const types = branches.filter((b) => b.keyword === "type").map((b) => String(b.params?.type));
  if (allowed.length > 0) {
    const values = [...new Set(allowed)];
    const extra = types.includes("null") ? " (or null)" : "";
    return [
      {
        ...union,
        keyword: "enum",
        message: `must be one of: ${values.join(", ")}${extra}`,
        params: { allowedValues: values },
      },
    ];
  }
  // The branch whose type the value has failed on its own terms (too short, too long, an inner
  // field): that is the error to report, not the union.
  const own = branches.filter(
    (b) => b.instancePath !== union.instancePath || !["type", "const", "enum"].includes(b.keyword ?? ""),
  );
  if (own.length > 0) return own;
  if (types.length > 0)
    return [{ ...union, keyword: "type", message: `must be ${oneOf([...new Set(types)])}` }];
  return [union];
}

function messageOf(v: AjvError): string {
  if (v.keyword === "required") return "is required";
  if (v.keyword === "enum" && Array.isArray(v.params?.allowedValues))
    return v.message?.startsWith("must be one of:")
      ? v.message
      : `must be one of: ${(v.params.allowedValues as unknown[]).map(quoted).join(", ")}`;
  if (v.keyword === "const") return `must be ${quoted(v.params?.allowedValue)}`;
  if (v.keyword === "additionalProperties") return "is not a known field";
  return v.message ?? "is invalid";
}

/**
 * Fastify schema errors (AJV) into field errors. `field` is the dotted path inside the part
 * (`leads.0.email`; other parts prefixed, `querystring.limit`; the part's name when the whole
 * part is wrong), `loc` the JSON path with the part first (["body", "leads", 0, "email"]).
 */
function fieldErrorsOf(err: FastifyError): FieldError[] {
  const list = foldUnions((err.validation ?? []) as AjvError[]);
  const context = err.validationContext ?? "body";
  return list.map((v) => {
    const path = pathOf(v.instancePath ?? "");
    const missing = v.params?.missingProperty;
    if (v.keyword === "required" && typeof missing === "string") path.push(missing);
    const extra = v.params?.additionalProperty;
    if (v.keyword === "additionalProperties" && typeof extra === "string") path.push(extra);
    const dotted = path.join(".");
    return {
      field: !dotted ? context : context === "body" ? dotted : `${context}.${dotted}`,
      message: messageOf(v),
      type: v.keyword ?? "invalid",
      loc: [PART_LOC[context] ?? context, ...path],
    };
  });
}

/**
 * The response of each domain failure (src/lib/errors.ts): the one place they become HTTP
 * errors, with today's status, error code, body fields and headers for each kind.
 */
export function failureError(failure: Failure): AppError {
  switch (failure.kind) {
    case "not_found":
      return new AppError("NOT_FOUND", failure.message, failure.details);
    case "invalid":
      return validationError(failure.errors, failure.message, failure.details);
    case "duplicate":
      return new AppError("DUPLICATE_LEAD", failure.message, failure.details);
    case "conflict":
      return new AppError("CONFLICT", failure.message, failure.details);
    case "suppressed":
      return new AppError("EMAIL_SUPPRESSED", failure.message, failure.details);
    case "not_permitted":
      return new AppError("INSUFFICIENT_PERMISSIONS", failure.message, failure.details);
    case "wrong_identity":
      return new AppError("FORBIDDEN", failure.message, failure.details);
    case "rejected":
      return new AppError("BAD_REQUEST", failure.message, failure.details);
    case "unavailable": {
      const { retryAfterSeconds: seconds } = failure;
      const headers: Record<string, string> = seconds === undefined ? {} : { "Retry-After": String(seconds) };
      return new AppError("SERVICE_UNAVAILABLE", failure.message, failure.details, {}, headers);
    }
    case "insufficient_credits":
      return paymentRequired(failure.requiredMilli, failure.availableMilli);
    case "rate_limited":
      return rateLimited(
        `Rate limit exceeded: ${failure.label}`,
        failure.retryAfterMs / 1000,
        "RATE_LIMIT_EXCEEDED",
        failure.details,
      );
    case "origin_not_allowed":
      return new AppError(
        "ORIGIN_NOT_ALLOWED",
        failure.origin === null
          ? "Neither Origin nor Referer names the page: the widget answers only pages on the key's allowed origins"
          : "This origin is not allowed for this publishable key",
        { origin: failure.origin },
      );
    case "captcha_failed":
      return new AppError("FORBIDDEN", "The CAPTCHA was not solved", { reason: failure.reason });
    case "concurrent_batch_limit":
      return rateLimited(
        `At most ${failure.limit} batches may run at once; wait for one to finish`,
        failure.retryAfterSeconds,
        "CONCURRENT_BATCH_LIMIT",
        { limit: failure.limit },
      );
    case "daily_limit":
      return rateLimited(
        `At most ${failure.limit} validations per account per day`,
        failure.retryAfterSeconds,
        "DAILY_LIMIT_EXCEEDED",
        { limit: failure.limit },
      );
    case "webhook_limit":
      return new AppError("CONFLICT", `An account may register at most ${failure.limit} webhooks`, {
        limit: failure.limit,
      });
    default:
      return unknownFailure(failure);
  }
}

function unknownFailure(failure: never): never {
  throw new Error(`unmapped failure ${JSON.stringify(failure)}`);
}

/** Maps any thrown value to an AppError; unknown errors become a generic 500 that leaks nothing. */
export function toAppError(error: unknown): { appError: AppError; unexpected: boolean } {
  if (error instanceof AppError) return { appError: error, unexpected: false };
  if (error instanceof DomainError) return { appError: failureError(error.failure), unexpected: false };
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
  // Errors raised before the first onRequest hook (routing's 414) have no request id header yet.
  if (!reply.hasHeader("X-Request-Id")) reply.header("X-Request-Id", reply.request.id);
  for (const [k, v] of Object.entries(appError.headers)) reply.header(k, v);
  return reply.status(appError.status).type("application/json; charset=utf-8").send(errorBodyOf(appError));
}

/** The error as an answer, with the log line an unexpected error or a 503 leaves (the app's
 *  error handler and the widget's front, ADR 0056). */
export function answerForFailure(
  error: unknown,
  log: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void },
  reqId: string,
): AppError {
  const { appError, unexpected } = toAppError(error);
  if (unexpected) log.error({ err: error, reqId }, "unhandled error");
  else if (appError.code === "SERVICE_UNAVAILABLE")
    log.warn({ err: error, reqId }, "answered 503: a backing service is unavailable");
  return appError;
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, answerForFailure(error, request.log, request.id));
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(
    reply,
    new AppError("NOT_FOUND", `Route ${request.method} ${request.url.split("?")[0]} not found`),
  );
}
