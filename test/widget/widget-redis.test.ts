// With REDIS_URL the widget's counters and "first today" marks live in Redis, so they hold across
// instances: two services on one database and one Redis charge an address once and share the
// per-IP allowance.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
import { loadConfig } from "../../src/config/config.js";
import type { App } from "../../src/http/app.js";
import { buildHttpApp, createServices, type Services } from "../../src/main.js";
import { TEST_JWT_SECRET } from "../support/harness.js";
import { REDIS_TEST_URL, redisSkipReason } from "../support/services.js";
import { SHOP, startWidgetWorld, type WidgetWorld } from "./widget-support.js";

describe("widget limits through Redis", async () => {
  const skip = await redisSkipReason();
  let w: WidgetWorld;
  let second: { services: Services; app: App };
  let pk: string;
  const ACCT = "acct_widget_redis";
  before(async () => {
    if (skip) return;
    w = await startWidgetWorld("sqlite", { REDIS_URL: REDIS_TEST_URL });
    // A second instance on the same database and Redis (as a scale-out deployment runs).
    const services = await createServices(
      loadConfig({
        ...w.env,
        NODE_ENV: "test",
        LOG_LEVEL: "silent",
        AUTH_JWT_SECRET: TEST_JWT_SECRET,
      }),
      { migrate: false },
    );
    second = { services, app: await buildHttpApp(services) };
    await second.app.ready();
    pk = (
      await w.keyOf(ACCT, {
        type: "publishable",
        allowedOrigins: [SHOP],
        widget: { distinctEmailsPerIpPerDay: 3 },
      })
    ).api_key;
  });
  after(async () => {
    await second?.app.close();
    await second?.services.close();
    await w?.close();
  });

  const check = (app: App, email: string, ip: string) =>
    app.inject({
      method: "POST",
      url: `/v1/widget/check-email?key=${pk}`,
      headers: { origin: SHOP },
      remoteAddress: ip,
      payload: { email },
    });

  it("charges an address once across instances and shares the per-IP allowance", { skip }, async () => {
    const before = await w.debits(ACCT);
    const answers = await Promise.all([
      check(w.h.app, "a@mailinator.com", "198.51.100.1"),
      check(second.app, "a@mailinator.com", "198.51.100.2"),
    ]);
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      [200, 200],
    );
    assert.equal((await w.debits(ACCT)) - before, 1);

    const statuses = [];
    for (const [i, app] of [w.h.app, second.app, w.h.app, second.app].entries())
      statuses.push((await check(app, `n${i}@mailinator.com`, "203.0.113.50")).statusCode);
    assert.deepEqual(
      statuses,
      [200, 200, 200, 429],
      "3 distinct addresses per IP per day, over both instances",
    );

    const redis = new Redis(REDIS_TEST_URL);
    try {
      assert.ok((await redis.keys("lc:wd:charge:*")).length > 0, "the charge marks are in Redis");
    } finally {
      redis.disconnect();
    }
  });

  it("sums both instances' counts in the widget stats", { skip }, async () => {
    // The first test's answers and refusals: five 200s (a@ twice, n0-n2) and one 429, split over
    // both instances; each report adds the counts its own instance still holds.
    const keyId = (await w.h.services.keys.list(ACCT)).find((k) => k.type === "publishable")?.key_id;
    const read = async (app: App) => {
      const res = await app.inject({
        method: "GET",
        url: `/v1/widget/stats?keyId=${keyId}`,
        headers: { authorization: `Bearer ${await w.h.token(ACCT)}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    await read(w.h.app);
    const report = await read(second.app);
    assert.equal(report.totals.checks, 5);
    assert.equal(report.totals.charged, 4);
    assert.equal(report.capHits.distinctEmailsPerIpPerDay, 1);
  });
});
