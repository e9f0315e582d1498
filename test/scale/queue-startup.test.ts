// Several processes starting together on a fresh PostgreSQL database each define every job
// queue of the catalog at once. pg-boss adds a partition per queue; unserialized, concurrent
// creations deadlock and the losing process fails to start. Queue creation takes turns under an
// advisory lock; queues that already exist are defined without waiting for it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { createJobQueue, JOB_QUEUE_DEFAULTS, type JobQueue } from "../../src/jobs/index.js";
import { queueSetupLockKey } from "../../src/jobs/pg-boss-job-store.js";
import { openDatabase } from "../../src/storage/db.js";
import { createEmptyDatabase } from "../support/db.js";
import { postgresSkipReason } from "../support/services.js";
import { waitFor } from "../support/wait-for.js";

const QUEUES = ["a.one", "b.two", "c.three", "d.four", "e.five", "f.six", "g.seven", "h.eight"];
const PROCESSES = 4;
const policy = { retryLimit: 1, retryDelayMs: 1000, expireInMs: 5000 };
const LOCK_KEY = queueSetupLockKey(JOB_QUEUE_DEFAULTS.pgBossSchema).toString();

const skip = await postgresSkipReason();

describe("job queue start-up of several processes at once", { skip }, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  /** A queue as one process of the cluster has it: its own database pool and pg-boss pool. */
  const processQueue = (url: string, pgBossConnections = 3): JobQueue => {
    const database = openDatabase(url, { maxConnections: 2 });
    const queue = createJobQueue(database, {
      pgBoss: { maxConnections: pgBossConnections },
      onError: () => {},
    });
    cleanups.push(async () => {
      await queue.stop({ graceful: false, timeoutMs: 0 });
      await database.close();
    });
    return queue;
  };

  it("defines every queue from four queue instances at once on a fresh database without a deadlock", async () => {
    const empty = await createEmptyDatabase("postgres");
    cleanups.push(empty.drop);
    const queues = Array.from({ length: PROCESSES }, () => processQueue(empty.url));
    // As startQueue does: one queue after the other, in catalog order, in every process.
    const results = await Promise.allSettled(
      queues.map(async (queue) => {
        await queue.start();
        for (const name of QUEUES) await queue.define(name, policy);
      }),
    );
    const failures = results.filter((r) => r.status === "rejected").map((r) => String(r.reason));
    assert.deepEqual(failures, []);
    for (const name of QUEUES)
      assert.ok(await queues[0]!.send(name, { n: 1 }), `a job can be sent to ${name}`);
  });

  describe("the queue set-up lock", () => {
    let url = "";
    let other: pg.Client;
    let queue: JobQueue;

    before(async () => {
      const empty = await createEmptyDatabase("postgres");
      cleanups.push(empty.drop);
      url = empty.url;
      // One pg-boss connection: creating a queue must not wait on the connection holding the lock.
      queue = processQueue(url, 1);
      await queue.start();
      await queue.define("made.before", policy);
      other = new pg.Client({ connectionString: url });
      await other.connect();
      cleanups.push(() => other.end());
    });

    // This database's holders only: pg_locks lists every database's, and other test files
    // define queues (taking the same lock key in their own databases) side by side with this one.
    const lockHolders = async (granted: boolean) =>
      Number(
        (
          await other.query(
            `SELECT count(*) AS n FROM pg_locks
             WHERE locktype = 'advisory' AND granted = $1 AND pid <> pg_backend_pid()
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
               AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = $2::bigint`,
            [granted, LOCK_KEY],
          )
        ).rows[0].n,
      );

    it("creates a new queue only after another process lets go of the lock", async () => {
      await other.query("SELECT pg_advisory_lock($1::bigint)", [LOCK_KEY]);
      let settled = false;
      const defining = queue.define("made.after", policy).finally(() => {
        settled = true;
      });
      try {
        await waitFor(async () => ((await lockHolders(false)) === 1 ? true : undefined), "define to wait");
        assert.equal(settled, false, "define waits for the lock");
      } finally {
        await other.query("SELECT pg_advisory_unlock($1::bigint)", [LOCK_KEY]);
      }
      await defining;
      assert.ok(await queue.send("made.after", { n: 1 }));
      assert.equal(await lockHolders(true), 0, "the lock is let go");
    });

    it("defines a queue that exists without waiting for the lock, and applies a changed policy", async () => {
      await other.query("SELECT pg_advisory_lock($1::bigint)", [LOCK_KEY]);
      try {
        await queue.define("made.before", { ...policy, retryLimit: 4 });
      } finally {
        await other.query("SELECT pg_advisory_unlock($1::bigint)", [LOCK_KEY]);
      }
      const row = await other.query("SELECT retry_limit FROM pgboss.queue WHERE name = 'made.before'");
      assert.equal(row.rows[0].retry_limit, 4);
    });

    it("lets go of the lock when creating a queue fails", async () => {
      await assert.rejects(queue.define("made.never", { ...policy, retryLimit: -1 }), /retryLimit/);
      assert.equal(await lockHolders(true), 0);
      await queue.define("made.later", policy);
      assert.ok(await queue.send("made.later", { n: 1 }));
    });
  });
});
