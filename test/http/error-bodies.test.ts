// Answers Fastify used to give in its own shape now carry the one error body: a path parameter
// too long (414); and JSON bodies are taken
// at their word (no type coercion): "" is not null for a field of 1+ characters, a string is not
// an array. Query strings are still coerced.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

const kind = dialects()[0]!;

function assertErrorBody(
  res: { statusCode: number; json(): Record<string, unknown> },
  status: number,
  code: string,
) {
  assert.equal(res.statusCode, status);
  const body = res.json();
  for (const field of ["error", "error_code", "message", "details"]) assert.ok(field in body, field);
  assert.equal(body.error_code, code);
}

describe(`error bodies everywhere (${kind})`, async () => {
  const skip = await skipReasonFor(kind);
  let h: Harness;
  let key = "";
  const call = (method: "GET" | "POST", url: string, payload?: unknown) => h.call(key, method, url, payload);

  before(async () => {
    if (skip) return;
    h = await startHarness(kind, UNLIMITED_RATE_ENV);
    key = await h.apiKey("acct_error_bodies");
  });
  after(() => h?.close());

  it("answers a path parameter over 100 characters with 414 in the error body", { skip }, async () => {
    assertErrorBody(await call("GET", `/v1/leads/${"x".repeat(101)}`), 414, "URI_TOO_LONG");
  });

  it("refuses an empty firstName with 422 instead of storing it", { skip }, async () => {
    const res = await call("POST", "/v1/leads", {
      email: "empty.name@acme.test",
      firstName: "",
      validate: false,
    });
    assertErrorBody(res, 422, "VALIDATION_ERROR");
    const listed = await call("GET", "/v1/leads?limit=10");
    assert.equal(listed.json().total, 0, "nothing was created");
  });

  it("refuses a JSON string where an array is required with 422", { skip }, async () => {
    const res = await call("POST", "/v1/webhooks", {
      url: "https://hooks.acme.test/in",
      events: "lead.created",
    });
    assertErrorBody(res, 422, "VALIDATION_ERROR");
  });

  it("still coerces query strings to the schema's types", { skip }, async () => {
    const res = await call("GET", "/v1/leads?limit=5&offset=0");
    assert.equal(res.statusCode, 200, res.body);
  });
});
