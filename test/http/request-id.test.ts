// Every answer carries X-Request-Id: successes, refusals, unknown routes and errors raised while
// routing, before any hook ran (a path parameter over 100 characters); a caller's own well-formed
// X-Request-Id is echoed, so a request can be followed through the logs.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Harness, startHarness } from "../support/harness.js";

describe("X-Request-Id on every answer", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness("sqlite");
  });
  after(async () => h?.close());

  it("names the request on successes, refusals, unknown routes and routing errors", async () => {
    for (const [url, status] of [
      ["/health", 200],
      ["/v1/leads", 401],
      ["/v1/nothing-here", 404],
      [`/v1/leads/${"x".repeat(120)}`, 414],
    ] as const) {
      const res = await h.app.inject({ method: "GET", url });
      assert.equal(res.statusCode, status, url);
      assert.match(String(res.headers["x-request-id"]), /^[\w.-]{1,100}$/, url);
    }
  });

  it("echoes a well-formed X-Request-Id the caller sent", async () => {
    const res = await h.app.inject({
      method: "GET",
      url: "/health",
      headers: { "x-request-id": "trace.42" },
    });
    assert.equal(res.headers["x-request-id"], "trace.42");
  });
});
