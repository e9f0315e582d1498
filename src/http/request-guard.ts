// Checks every request makes before schema validation, in one place rather than per route:
// - a route that takes a JSON body refuses any other content type with 415 (a text/plain body was
//   parsed as a string and answered "must be object", a 422 that hid the real mistake);
// - no string of the body, query or path holds NUL, another C0 control or an unpaired surrogate,
//   and tab/LF/CR only where the schema allows them (src/lib/safe-text.ts): 422 naming the field,
//   so such text never reaches storage on either database.
import type { FastifyRequest } from "fastify";
import { type FieldError, invalid } from "../lib/errors.js";
import { findUnsafeText } from "../lib/safe-text.js";
import { AppError } from "./errors.js";
import { routeOptionsOf } from "./route-options.js";

/** The parts checked, with their name in `field` (Fastify's) and in `detail.loc` (the spec's). */
const PARTS = [
  { key: "body", field: "", loc: "body", of: (r: FastifyRequest) => r.body },
  { key: "querystring", field: "querystring.", loc: "query", of: (r: FastifyRequest) => r.query },
  { key: "params", field: "params.", loc: "path", of: (r: FastifyRequest) => r.params },
] as const;

const isJsonType = (contentType: string) => {
  const mime = contentType.split(";")[0]!.trim().toLowerCase();
  return mime === "application/json" || mime.endsWith("+json");
};

/** A preValidation hook in Fastify's callback form: the checks are synchronous, and a promise per
 *  request for them would be pure overhead (ADR 0055). */
export function guardRequest(request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void {
  try {
    checkRequest(request);
    done();
  } catch (error) {
    done(error as Error);
  }
}

/** 415 for a body that is not JSON on a route whose schema takes one (a route may call this
 *  before the body is read; the guard calls it again after). */
export function refuseNonJsonBody(request: FastifyRequest): void {
  const contentType = request.headers["content-type"];
  if (routeOptionsOf(request).schema?.body && typeof contentType === "string" && !isJsonType(contentType)) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      `This route takes a JSON body: send it as application/json, not ${contentType.split(";")[0]}`,
    );
  }
}

function checkRequest(request: FastifyRequest): void {
  const schema = (routeOptionsOf(request).schema ?? {}) as Record<string, unknown>;
  refuseNonJsonBody(request);
  const errors: FieldError[] = [];
  for (const part of PARTS) {
    const value = part.of(request);
    if (value === null || typeof value !== "object") continue;
    for (const bad of findUnsafeText(value, schema[part.key])) {
      errors.push({
        field: `${part.field}${bad.path.join(".")}` || part.loc,
        message: bad.message,
        type: bad.type,
        loc: [part.loc, ...bad.path],
      });
    }
  }
  if (errors.length > 0) throw invalid(errors);
}
