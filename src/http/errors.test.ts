import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toAppError } from "./errors.js";

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
