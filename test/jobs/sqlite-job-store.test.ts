// The embedded runner's housekeeping, on a controlled clock: lease expiry, backoff, purging.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { JobPolicy } from "../../src/jobs/job-queue.js";
import { SqliteJobStore } from "../../src/jobs/sqlite-job-store.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";

const HOUR_MS = 60 * 60 * 1000;
const POLICY: JobPolicy = { retryLimit: 1, retryDelayMs: 1000, expireInMs: 60_000 };

describe("SQLite job store", () => {
  let test: TestDatabase;
  let nowMs = Date.parse("2026-01-01T00:00:00.000Z");
  let store: SqliteJobStore;

  before(async () => {
    test = await createTestDatabase("sqlite");
    store = new SqliteJobStore(test.database.db, {
      clock: { now: () => new Date(nowMs) },
      random: () => 0.5,
      completedRetentionMs: 24 * HOUR_MS,
      failedRetentionMs: 7 * 24 * HOUR_MS,
    });
  });
  after(() => test.destroy());

  const send = (name: string, policy: JobPolicy = POLICY) =>
    store.insert({
      name,
      data: { n: 1 },
      policy,
      startAfterMs: 0,
      singletonKey: null,
      trx: undefined,
      deadLetter: null,
    });

  it("counts an attempt whose lease ran out as failed and retries it after the delay", async () => {
    const id = (await send("lease"))!;
    const [claimed] = await store.claim("lease", 1);
    assert.equal(claimed?.id, id);

    nowMs += 59_000;
    await store.maintain();
    assert.equal((await store.get("lease", id))?.state, "active", "the lease still holds");

    nowMs += 2_000;
    await store.maintain();
    const expired = await store.get("lease", id);
    assert.equal(expired?.state, "retry");
    assert.equal(expired?.retryCount, 1);
    assert.match(expired?.lastError ?? "", /lease expired/);
    assert.deepEqual(await store.claim("lease", 1), [], "not before the retry delay");

    nowMs += 1_000;
    const [again] = await store.claim("lease", 1);
    assert.equal(again?.retryCount, 1);
    await store.complete(claimed!);
    assert.equal((await store.get("lease", id))?.state, "active", "the expired attempt cannot complete it");
    await store.complete(again!);
    assert.equal((await store.get("lease", id))?.state, "completed");
  });

  it("doubles the retry delay with backoff", async () => {
    const policy = { retryLimit: 3, retryDelayMs: 1000, retryBackoff: true, expireInMs: 60_000 };
    assert.ok(await send("backoff", policy));
    let [job] = await store.claim("backoff", 1);
    const waits: number[] = [];
    for (let retry = 1; retry <= 2; retry++) {
      await store.fail(job!, { message: "greylisted" });
      let waitedMs = 0;
      for (;;) {
        [job] = await store.claim("backoff", 1);
        if (job) break;
        nowMs += 250;
        waitedMs += 250;
      }
      waits.push(waitedMs);
    }
    // random() = 0.5: 1000 * 1.5, then 2000 * 1.5.
    assert.deepEqual(waits, [1500, 3000]);
  });

  it("purges completed jobs after their retention and failed jobs after theirs", async () => {
    const done = (await send("purge"))!;
    const failing = (await send("purge", { ...POLICY, retryLimit: 0 }))!;
    const [a, b] = await store.claim("purge", 2);
    await store.complete(a!);
    await store.fail(b!, { message: "undeliverable" });

    nowMs += 24 * HOUR_MS + 1;
    await store.maintain();
    assert.equal(await store.get("purge", done), null);
    assert.equal((await store.get("purge", failing))?.state, "failed");

    nowMs += 6 * 24 * HOUR_MS;
    await store.maintain();
    assert.equal(await store.get("purge", failing), null);
  });
});
