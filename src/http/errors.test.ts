import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "@sinclair/typebox";
import Fastify from "fastify";
import { type Failure, fail } from "../lib/errors.js";
import { errorHandler, failureError, toAppError } from "./errors.js";

const fastifyError = (code: string, statusCode: number) =>
  Object.assign(new Error(`${code} message`), { code, statusCode });

describe("toAppError", () => {
  it("maps Fastify's and its plugins' 4xx by status, and leaks nothing of the rest", () => {
    for (const [code, statusCode, expected] of [
      ["FST_ERR_CTP_BODY_TOO_LARGE", 413, "PAYLOAD_TOO_LARGE"],
      ["FST_REQ_FILE_TOO_LARGE", 413, "PAYLOAD_TOO_LARGE"],
      ["FST_ERR_CTP_INVALID_MEDIA_TYPE", 415, "UNSUPPORTED_MEDIA_TYPE"],
      ["FST_ERR_CTP_INVALID_CONTENT_LENGTH", 400, "BAD_REQUEST"],
      ["FST_ERR_CTP_INVALID_JSON_BODY", 400, "INVALID_JSON"],
      ["FST_SOMETHING_ELSE", 500, "INTERNAL_ERROR"],
    ] as const) {
      const { appError } = toAppError(fastifyError(code, statusCode));
      assert.equal(appError.code, expected, code);
    }
    const unknown = toAppError(new Error("secret detail"));
    assert.equal(unknown.unexpected, true);
    assert.doesNotMatch(unknown.appError.message, /secret/);
  });

  it("answers 503 with Retry-After, not 500, when the database is restarting or unreachable", () => {
    const pgError = (code: string, message: string) =>
      Object.assign(new Error(message), { code, severity: "FATAL" });
    for (const error of [
      pgError("57P01", "terminating connection due to administrator command"),
      pgError("57P03", "the database system is starting up"),
      pgError("08006", "connection failure"),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
        code: "ECONNREFUSED",
        syscall: "connect",
      }),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
      Object.assign(new AggregateError([Object.assign(new Error("refused"), { code: "ECONNREFUSED" })]), {}),
    ]) {
      const { appError, unexpected } = toAppError(error);
      assert.equal(appError.code, "SERVICE_UNAVAILABLE", error.message);
      assert.equal(appError.status, 503);
      assert.equal(appError.headers["Retry-After"], "5");
      assert.equal(unexpected, false);
    }
    for (const error of [pgError("23505", "duplicate key"), pgError("42P01", "relation does not exist")]) {
      assert.equal(toAppError(error).appError.code, "INTERNAL_ERROR", error.message);
    }
  });
});

describe("failureError", () => {
  it("answers each limit refusal with its documented status, code, body fields and Retry-After", () => {
    const cases: [Failure, number, string, Record<string, unknown>, string | undefined][] = [
      [
        { kind: "insufficient_credits", requiredMilli: 2, availableMilli: 1 },
        402,
        "PAYMENT_REQUIRED",
        { required: 0.002, available: 0.001, displayCreditsRequired: 2, displayCreditsAvailable: 1 },
        undefined,
      ],
      [
        { kind: "rate_limited", label: "60 per minute", retryAfterMs: 1500 },
        429,
        "RATE_LIMIT_EXCEEDED",
        { retry_after: 2 },
        "2",
      ],
      [
        { kind: "concurrent_batch_limit", limit: 3, retryAfterSeconds: 10 },
        429,
        "CONCURRENT_BATCH_LIMIT",
        { retry_after: 10 },
        "10",
      ],
      [
        { kind: "daily_limit", limit: 100, retryAfterSeconds: 3600 },
        429,
        "DAILY_LIMIT_EXCEEDED",
        { retry_after: 3600 },
        "3600",
      ],
      [{ kind: "webhook_limit", limit: 25 }, 409, "CONFLICT", {}, undefined],
    ];
    for (const [refusal, status, code, extra, retryAfter] of cases) {
      const error = failureError(refusal);
      assert.equal(error.status, status, refusal.kind);
      assert.equal(error.code, code, refusal.kind);
      assert.deepEqual(error.extra, extra, refusal.kind);
      assert.equal(error.headers["Retry-After"], retryAfter, refusal.kind);
    }
    assert.deepEqual(failureError({ kind: "daily_limit", limit: 100, retryAfterSeconds: 5 }).details, {
      limit: 100,
      retry_after: 5,
    });
    const widget = failureError({
      kind: "rate_limited",
      label: "widget perIpPerMinute (30)",
      retryAfterMs: 1500,
      details: { limit: "perIpPerMinute", points: 30 },
    });
    assert.deepEqual(
      [widget.status, widget.code, widget.message, widget.details, widget.headers["Retry-After"]],
      [
        429,
        "RATE_LIMIT_EXCEEDED",
        "Rate limit exceeded: widget perIpPerMinute (30)",
        { limit: "perIpPerMinute", points: 30, retry_after: 2 },
        "2",
      ],
    );
    const webhooks = failureError({ kind: "webhook_limit", limit: 25 });
    assert.equal(webhooks.message, "An account may register at most 25 webhooks");
    assert.deepEqual(webhooks.details, { limit: 25 });
  });

  it("answers the other domain failures with their documented status, code, message and details", () => {
    const cases: [Failure, number, string, string, Record<string, unknown>][] = [
      [{ kind: "not_found", message: "Lead not found" }, 404, "NOT_FOUND", "Lead not found", {}],
      [
        {
          kind: "duplicate",
          message: "A lead with email a@b.test already exists",
          details: { email: "a@b.test" },
        },
        400,
        "DUPLICATE_LEAD",
        "A lead with email a@b.test already exists",
        { email: "a@b.test" },
      ],
      [
        { kind: "conflict", message: "used", details: { reason: "used" } },
        409,
        "CONFLICT",
        "used",
        { reason: "used" },
      ],
      [{ kind: "not_permitted", message: "owners only" }, 403, "INSUFFICIENT_PERMISSIONS", "owners only", {}],
      [
        { kind: "wrong_identity", message: "for another email", details: { reason: "email_mismatch" } },
        403,
        "FORBIDDEN",
        "for another email",
        { reason: "email_mismatch" },
      ],
      [
        { kind: "rejected", message: "start again", details: { reason: "state" } },
        400,
        "BAD_REQUEST",
        "start again",
        { reason: "state" },
      ],
      [
        { kind: "unavailable", message: "Redis unreachable" },
        503,
        "SERVICE_UNAVAILABLE",
        "Redis unreachable",
        {},
      ],
      [
        { kind: "origin_not_allowed", origin: "https://evil.test" },
        403,
        "ORIGIN_NOT_ALLOWED",
        "This origin is not allowed for this publishable key",
        { origin: "https://evil.test" },
      ],
      [
        { kind: "origin_not_allowed", origin: null },
        403,
        "ORIGIN_NOT_ALLOWED",
        "Neither Origin nor Referer names the page: the widget answers only pages on the key's allowed origins",
        { origin: null },
      ],
      [
        { kind: "captcha_failed", reason: "timeout-or-duplicate" },
        403,
        "FORBIDDEN",
        "The CAPTCHA was not solved",
        { reason: "timeout-or-duplicate" },
      ],
    ];
    for (const [failure, status, code, message, details] of cases) {
      const error = failureError(failure);
      assert.deepEqual(
        [error.status, error.code, error.message, error.details],
        [status, code, message, details],
      );
    }
    const later = failureError({ kind: "unavailable", message: "later", retryAfterSeconds: 30 });
    assert.equal(later.headers["Retry-After"], "30");
    const invalid = failureError({
      kind: "invalid",
      errors: [{ field: "email", message: "is required", type: "required" }],
    });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.message, "Request validation failed");
    assert.deepEqual(invalid.details, {
      errors: [{ field: "email", message: "is required", type: "required" }],
    });
    assert.deepEqual(invalid.extra.detail, [
      { loc: ["body", "email"], msg: "is required", type: "required" },
    ]);
  });

  it("maps a refusal thrown to roll a transaction back like a returned one", () => {
    const thrown = fail({ kind: "insufficient_credits", requiredMilli: 5, availableMilli: 0 });
    const { appError, unexpected } = toAppError(thrown);
    assert.equal(unexpected, false);
    assert.equal(appError.code, "PAYMENT_REQUIRED");
    assert.equal(appError.message, "Insufficient credits: 0.005 required, 0 available");
  });
});

describe("validation errors", () => {
  /** A route validated as the app validates (all errors), answering through our error handler. */
  async function errorsFor(payload: unknown, url = "/x") {
    const app = Fastify({ ajv: { customOptions: { allErrors: true, coerceTypes: false } } });
    app.setErrorHandler(errorHandler);
    const schema = Type.Object({
      priority: Type.Optional(Type.Union(["low", "high"].map((p) => Type.Literal(p)))),
      kind: Type.Optional(Type.Union([Type.Union(["a", "b"].map((k) => Type.Literal(k))), Type.Null()])),
      name: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
      tags: Type.Optional(Type.Union([Type.Array(Type.String({ minLength: 1 })), Type.Null()])),
      items: Type.Optional(Type.Array(Type.Object({ "a/b": Type.Optional(Type.Integer()) }))),
    });
    app.post(
      "/x",
      { schema: { body: schema, querystring: Type.Object({ n: Type.Optional(Type.Integer()) }) } },
      async () => ({}),
    );
    const res = await app.inject({ method: "POST", url, payload: payload as object });
    await app.close();
    const body = res.json();
    return {
      status: res.statusCode,
      errors: body.details.errors,
      loc: body.detail.map((d: { loc: unknown }) => d.loc),
    };
  }

  it("folds a union into one message listing the allowed values or the types", async () => {
    const { errors } = await errorsFor({ priority: "mid", kind: "c", name: 5 });
    assert.deepEqual(errors, [
      { field: "priority", message: "must be one of: low, high", type: "enum" },
      { field: "kind", message: "must be one of: a, b (or null)", type: "enum" },
      { field: "name", message: "must be string or null", type: "type" },
    ]);
  });

  it("reports the failing branch's own error rather than the union", async () => {
    const { errors, loc } = await errorsFor({ name: "", tags: ["x", ""] });
    assert.deepEqual(errors, [
      { field: "name", message: "must NOT have fewer than 1 characters", type: "minLength" },
      { field: "tags.1", message: "must NOT have fewer than 1 characters", type: "minLength" },
    ]);
    assert.deepEqual(loc, [
      ["body", "name"],
      ["body", "tags", 1],
    ]);
  });

  it("gives detail.loc as the JSON path with the part first, never [body, body]", async () => {
    assert.deepEqual((await errorsFor([1])).loc, [["body"]]);
    assert.deepEqual((await errorsFor({ items: [{}, { "a/b": "x" }] })).loc, [["body", "items", 1, "a/b"]]);
    const query = await errorsFor({}, "/x?n=abc");
    assert.deepEqual(query.errors[0].field, "querystring.n");
    assert.deepEqual(query.loc, [["query", "n"]]);
  });
});
