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
});
