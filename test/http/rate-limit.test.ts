import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Harness, startHarness } from "../support/harness.js";
import { REDIS_TEST_URL, redisSkipReason } from "../support/services.js";

describe("rate limits (in memory)", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness("sqlite", {
      RATE_LIMIT_PER_MINUTE: "6",
      RATE_LIMIT_ENDPOINTS: "GET /v1/credits=3",
    });
  });
  after(async () => h?.close());

  it("applies the route's limit with X-RateLimit headers, then 429 with Retry-After", async () => {
    const key = await h.apiKey("acct_rl");
    const call = () => h.app.inject({ method: "GET", url: "/v1/credits", headers: { "x-api-key": key } });
    const first = await call();
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers["x-ratelimit-limit"], "3");
    assert.equal(first.headers["x-ratelimit-remaining"], "2");
    assert.ok(Number(first.headers["x-ratelimit-reset"]) > Date.now() / 1000);
    await call();
    await call();
    const limited = await call();
    assert.equal(limited.statusCode, 429);
    const body = limited.json();
    assert.equal(body.error_code, "RATE_LIMIT_EXCEEDED");
    assert.ok(body.retry_after >= 1 && body.retry_after <= 60);
    assert.equal(limited.headers["retry-after"], String(body.retry_after));
    assert.match(body.message, /3 requests per minute/);
  });

  it("applies the global per-key limit across routes, and counts keys separately", async () => {
    const key = await h.apiKey("acct_rl_global");
    const other = await h.apiKey("acct_rl_global", "second");
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const url = i % 2 === 0 ? "/v1/credits/transactions" : "/v1/credits";
      statuses.push((await h.app.inject({ method: "GET", url, headers: { "x-api-key": key } })).statusCode);
    }
    assert.deepEqual(
      statuses,
      [200, 200, 200, 200, 200, 200, 429],
      "the 7th request in a minute is over the global 6",
    );
    const fresh = await h.app.inject({
      method: "GET",
      url: "/v1/credits/transactions",
      headers: { "x-api-key": other },
    });
    assert.equal(fresh.statusCode, 200);
  });

  it("does not rate limit the probes", async () => {
    for (let i = 0; i < 20; i++)
      assert.equal((await h.app.inject({ method: "GET", url: "/health" })).statusCode, 200);
  });
});

describe("rate limits shared through Redis", async () => {
  const skip = await redisSkipReason();
  let a: Harness;
  let b: Harness;
  before(async () => {
    if (skip) return;
    const env = { REDIS_URL: REDIS_TEST_URL, RATE_LIMIT_ENDPOINTS: "GET /v1/credits=4" };
    a = await startHarness("sqlite", env);
    b = await startHarness("sqlite", { ...env, DATABASE_URL: a.testDb.url });
  });
  after(async () => {
    await b?.app.close();
    await b?.services.close();
    await b?.testDb.destroy();
    await a?.close();
  });

  it("holds a key's per-endpoint limit in total across two instances", { skip }, async () => {
    const key = await a.apiKey("acct_shared");
    const results: number[] = [];
    for (let i = 0; i < 6; i++) {
      const app = i % 2 === 0 ? a.app : b.app;
      results.push(
        (await app.inject({ method: "GET", url: "/v1/credits", headers: { "x-api-key": key } })).statusCode,
      );
    }
    assert.deepEqual(results, [200, 200, 200, 200, 429, 429]);
  });
});
