import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { MemoryWindowCounters, RedisWindowCounters } from "../../src/lib/window-counters.js";
import { REDIS_TEST_URL, redisSkipReason } from "../support/services.js";

describe("RedisWindowCounters", async () => {
  const skip = await redisSkipReason();
  let redis: Redis;
  const prefix = `wc-test-${process.pid}-${Date.now()}`;
  before(() => {
    if (!skip) redis = new Redis(REDIS_TEST_URL, { enableAutoPipelining: true });
  });
  after(async () => {
    if (!redis) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it("counts all windows in one command, shared by every instance on the same Redis", { skip }, async () => {
    const windows = [
      { prefix: `${prefix}:m`, durationS: 60 },
      { prefix: `${prefix}:h`, durationS: 3600 },
    ];
    const a = new RedisWindowCounters(redis);
    const b = new RedisWindowCounters(redis);
    const first = await a.hit("acct:1", windows);
    assert.deepEqual(
      first.map((h) => h.consumed),
      [1, 1],
    );
    assert.ok(first[0]!.msBeforeNext > 59_000 && first[0]!.msBeforeNext <= 60_000);
    assert.ok(first[1]!.msBeforeNext > 3_599_000 && first[1]!.msBeforeNext <= 3_600_000);
    const second = await b.hit("acct:1", windows);
    assert.deepEqual(
      second.map((h) => h.consumed),
      [2, 2],
    );
    assert.equal(await redis.get(`${prefix}:m:acct:1`), "2");
    const ttl = await redis.pttl(`${prefix}:h:acct:1`);
    assert.ok(ttl > 3_590_000 && ttl <= 3_600_000);
  });

  it("keeps rate-limiter-flexible's counters: both count the same key during a rolling deploy", {
    skip,
  }, async () => {
    const flexible = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:r`,
      points: 10,
      duration: 60,
    });
    await flexible.consume("acct:2");
    await flexible.consume("acct:2");
    const [hit] = await new RedisWindowCounters(redis).hit("acct:2", [
      { prefix: `${prefix}:r`, durationS: 60 },
    ]);
    assert.equal(hit!.consumed, 3);
    assert.equal((await flexible.consume("acct:2")).consumedPoints, 4);
  });

  it("counts in memory while Redis does not answer", async () => {
    // A port that accepts nothing: ioredis without its offline queue fails the command at once.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = new Redis({
      port,
      host: "127.0.0.1",
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    down.on("error", () => {});
    const insurance = new MemoryWindowCounters();
    const counters = new RedisWindowCounters(down, insurance);
    const windows = [{ prefix: "rl:global:m", durationS: 60 }];
    assert.deepEqual(
      (await counters.hit("acct:3", windows)).map((h) => h.consumed),
      [1],
    );
    assert.deepEqual(
      (await counters.hit("acct:3", windows)).map((h) => h.consumed),
      [2],
    );
    assert.equal(insurance.size, 1);
    down.disconnect();
  });
});
