// The API-key cache (src/keys/key-cache.ts). With Redis, two KeysService instances stand for two
// API processes on one database and the machine's Redis: a known key skips its row read, yet a
// revocation through either instance holds on the other's next request; a Redis that lost its
// data, an expired entry or an unreachable Redis all fall back to the row. Embedded SQLite keeps
// its board in the one API process, which makes every revocation.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { Redis } from "ioredis";
import { KeyCache, LocalRevocationBoard, RedisRevocationBoard } from "../../src/keys/key-cache.js";
import { hashApiKey } from "../../src/keys/key-format.js";
import { FULL_SECRET_POLICY } from "../../src/keys/key-policy.js";
import { KeysRepo } from "../../src/keys/keys.repo.js";
import { KeysService } from "../../src/keys/keys.service.js";
import type { Clock } from "../../src/lib/clock.js";
import { failureOf } from "../../src/lib/errors.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { REDIS_TEST_URL, redisSkipReason } from "../support/services.js";

const TTL_MS = 60_000;
const skip = await redisSkipReason();

class TestClock implements Clock {
  ms = Date.parse("2026-11-21T10:00:00.000Z");
  now = () => new Date(this.ms);
}

const seedAccount = (t: TestDatabase, id: string) =>
  t.database.db
    .insertInto("accounts")
    .values({ id, balance_milli: 0, created_at: "2026-01-01", updated_at: "2026-01-01" })
    .execute();

/** Changes the row behind every service's back: only a row read can notice. */
const revokeRowDirectly = (t: TestDatabase, clock: Clock, keyId: string) =>
  t.database.db
    .updateTable("api_keys")
    .set({ revoked_at: clock.now().toISOString() })
    .where("id", "=", keyId)
    .execute();

describe("API key cache with a Redis revocation board", { skip }, () => {
  let t: TestDatabase;
  let redis: Redis;
  let prefix: string;
  let clock: TestClock;
  let a: KeysService;
  let b: KeysService;

  const instance = (client: Redis = redis) =>
    new KeysService(
      new KeysRepo(),
      t.database,
      clock,
      new KeyCache(new RedisRevocationBoard(client, prefix), { ttlMs: TTL_MS, maxEntries: 100 }),
    );
  const revokeRow = (keyId: string) => revokeRowDirectly(t, clock, keyId);

  before(async () => {
    t = await createTestDatabase("sqlite");
    redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 1 });
    await seedAccount(t, "acct_cache");
  });
  after(async () => {
    await redis?.quit();
    await t?.destroy();
  });
  afterEach(async () => {
    await redis.del(`${prefix}generation`); // revocation marks expire by themselves
  });
  beforeEach(() => {
    prefix = `lc:test:${randomUUID()}:`;
    clock = new TestClock();
    a = instance();
    b = instance();
  });

  it("serves a known key without reading its row again", async () => {
    const { api_key, key_id } = await a.create("acct_cache", "cached", null);
    assert.deepEqual(await b.authenticate(api_key), {
      accountId: "acct_cache",
      keyId: key_id,
      policy: FULL_SECRET_POLICY,
    });
    await revokeRow(key_id);
    assert.deepEqual(
      await b.authenticate(api_key),
      { accountId: "acct_cache", keyId: key_id, policy: FULL_SECRET_POLICY },
      "a cache hit",
    );
    assert.equal(await instance().authenticate(api_key), undefined, "a fresh instance reads the row");
  });

  it("refuses a key revoked through one instance on the other's next request", async () => {
    const { api_key, key_id } = await a.create("acct_cache", "shared", null);
    assert.ok(await a.authenticate(api_key));
    assert.ok(await b.authenticate(api_key));
    assert.equal(await a.revoke("acct_cache", key_id), true);
    assert.equal(await b.authenticate(api_key), undefined);
    assert.equal(await a.authenticate(api_key), undefined);
  });

  it("never answers at once: the shared board is asked on every request", async () => {
    const { api_key } = await a.create("acct_cache", "shared", null);
    assert.ok(await a.authenticate(api_key));
    assert.equal(a.authenticateNow(api_key), undefined);
  });

  it("marks nothing for a key that is not the account's own", async () => {
    const { key_id } = await a.create("acct_cache", "someone's", null);
    assert.equal(await b.revoke("acct_other", key_id), false);
    assert.equal(await b.revoke("acct_cache", "key_unknown"), false);
    assert.equal(await redis.exists(`${prefix}revoked:${key_id}`), 0);
    assert.equal(await redis.exists(`${prefix}revoked:key_unknown`), 0);
  });

  it("voids every entry when Redis has lost its data (a new generation)", async () => {
    const { api_key, key_id } = await a.create("acct_cache", "flushed", null);
    assert.ok(await b.authenticate(api_key));
    await revokeRow(key_id);
    await redis.del(`${prefix}generation`);
    assert.equal(await b.authenticate(api_key), undefined);
  });

  it("reads the row again once an entry is older than its TTL", async () => {
    const { api_key, key_id } = await a.create("acct_cache", "aging", null);
    assert.ok(await b.authenticate(api_key));
    await revokeRow(key_id);
    clock.ms += TTL_MS - 1;
    assert.ok(await b.authenticate(api_key), "still within the TTL");
    clock.ms += 1;
    assert.equal(await b.authenticate(api_key), undefined);
  });

  it("still records last use on cache hits, at most once a minute", async () => {
    const { api_key, key_id } = await a.create("acct_cache", "used", null);
    const lastUsed = async () =>
      (
        await t.database.db
          .selectFrom("api_keys")
          .select("last_used_at")
          .where("id", "=", key_id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    await b.authenticate(api_key);
    const first = await lastUsed();
    assert.equal(first, clock.now().toISOString());
    clock.ms += 30_000;
    await b.authenticate(api_key);
    assert.equal(await lastUsed(), first, "within the minute: no write");
    clock.ms += 31_000;
    await b.authenticate(api_key);
    assert.equal(await lastUsed(), clock.now().toISOString());
  });

  it("without Redis reads every row, and refuses to revoke rather than leave caches behind", async () => {
    const down = new Redis("redis://127.0.0.1:1", {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    down.on("error", () => {});
    try {
      const cut = instance(down);
      const { api_key, key_id } = await cut.create("acct_cache", "no redis", null);
      assert.ok(await cut.authenticate(api_key));
      await assert.rejects(cut.revoke("acct_cache", key_id), (e) => failureOf(e)?.kind === "unavailable");
      assert.ok(await cut.authenticate(api_key), "nothing was revoked");
      await revokeRow(key_id);
      assert.equal(await cut.authenticate(api_key), undefined, "no cache without a board");
    } finally {
      down.disconnect();
    }
  });
});

describe("API key cache of an embedded deployment (a board in the process)", () => {
  let t: TestDatabase;
  let clock: TestClock;
  let board: LocalRevocationBoard;
  let keys: KeysService;
  const revokeRow = (keyId: string) => revokeRowDirectly(t, clock, keyId);

  before(async () => {
    t = await createTestDatabase("sqlite");
    await seedAccount(t, "acct_local");
  });
  after(async () => {
    await t?.destroy();
  });
  beforeEach(() => {
    clock = new TestClock();
    board = new LocalRevocationBoard(() => clock.ms);
    keys = new KeysService(
      new KeysRepo(),
      t.database,
      clock,
      new KeyCache(board, { ttlMs: TTL_MS, maxEntries: 100 }),
    );
  });

  it("serves a known key without reading its row again, until the TTL", async () => {
    const { api_key, key_id } = await keys.create("acct_local", "cached", null);
    assert.ok(await keys.authenticate(api_key));
    await revokeRow(key_id);
    assert.ok(await keys.authenticate(api_key), "a cache hit");
    clock.ms += TTL_MS;
    assert.equal(await keys.authenticate(api_key), undefined, "the row, read again after the TTL");
  });

  it("answers a cached, confirmed key at once, and leaves the rest to authenticate()", async () => {
    const { api_key, key_id } = await keys.create("acct_local", "at once", null);
    assert.equal(keys.authenticateNow(api_key), undefined, "not cached yet");
    assert.ok(await keys.authenticate(api_key));
    assert.deepEqual(keys.authenticateNow(api_key), {
      accountId: "acct_local",
      keyId: key_id,
      policy: FULL_SECRET_POLICY,
    });
    clock.ms += 61_000;
    assert.equal(keys.authenticateNow(api_key), undefined, "a last use to record");
    assert.ok(await keys.authenticate(api_key), "authenticate() records it");
    assert.ok(keys.authenticateNow(api_key));
    assert.equal(await keys.revoke("acct_local", key_id), true);
    assert.equal(keys.authenticateNow(api_key), undefined, "revoked");
    assert.equal(await keys.authenticate(api_key), undefined);
    assert.equal(keys.authenticateNow("sk_malformed"), undefined);
  });

  it("refuses a revoked key on the next request", async () => {
    const { api_key, key_id } = await keys.create("acct_local", "revoked", null);
    assert.ok(await keys.authenticate(api_key));
    assert.equal(await keys.revoke("acct_local", key_id), true);
    assert.equal(await keys.authenticate(api_key), undefined);
  });

  it("accepts a key created by another process (the CLI) on its first use", async () => {
    const cli = new KeysService(new KeysRepo(), t.database, clock);
    const { api_key, key_id } = await cli.create("acct_local", "from the cli", null);
    assert.deepEqual(await keys.authenticate(api_key), {
      accountId: "acct_local",
      keyId: key_id,
      policy: FULL_SECRET_POLICY,
    });
  });

  it("refuses a key whose revocation raced the read that cached it", async () => {
    const { api_key, key_id } = await keys.create("acct_local", "raced", null);
    // The row is read while the key is active, the revocation lands, and only then is the entry
    // remembered: the mark made by the revocation is what the entry's next check finds.
    const generation = await board.generation();
    assert.equal(await keys.revoke("acct_local", key_id), true);
    const cache = new KeyCache(board, { ttlMs: TTL_MS, maxEntries: 100 });
    cache.remember(
      hashApiKey(api_key),
      { keyId: key_id, accountId: "acct_local", lastUsedAt: null, policy: FULL_SECRET_POLICY },
      generation,
      clock.ms,
    );
    const raced = new KeysService(new KeysRepo(), t.database, clock, cache);
    assert.equal(await raced.authenticate(api_key), undefined);
  });

  it("forgets marks once no cache entry can outlive them", async () => {
    const { key_id } = await keys.create("acct_local", "old mark", null);
    await board.markRevoked(key_id);
    assert.equal((await board.check(key_id)).revoked, true);
    clock.ms += 3_600_000;
    assert.equal((await board.check(key_id)).revoked, false);
  });
});
