// Several processes starting together on a fresh PostgreSQL database each define every job
// queue of the catalog at once. pg-boss adds a partition per queue; unserialized, concurrent
// creations deadlock and the losing process fails to start.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createJobQueue, type JobQueue } from "../../src/jobs/index.js";
import { openDatabase } from "../../src/storage/db.js";
import { createEmptyDatabase } from "../support/db.js";
import { postgresSkipReason } from "../support/services.js";

const QUEUES = ["a.one", "b.two", "c.three", "d.four", "e.five", "f.six", "g.seven", "h.eight"];
const PROCESSES = 4;

const skip = await postgresSkipReason();

describe("job queue start-up of several processes at once", { skip }, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  it("defines every queue from four queue instances at once on a fresh database without a deadlock", async () => {
    const empty = await createEmptyDatabase("postgres");
    cleanups.push(empty.drop);
    const queues: JobQueue[] = [];
    for (let i = 0; i < PROCESSES; i++) {
      const database = openDatabase(empty.url, { maxConnections: 2 });
      const queue = createJobQueue(database, { pgBoss: { maxConnections: 3 }, onError: () => {} });
      queues.push(queue);
      cleanups.push(async () => {
        await queue.stop({ graceful: false, timeoutMs: 0 });
        await database.close();
      });
    }
    const policy = { retryLimit: 1, retryDelayMs: 1000, expireInMs: 5000 };
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
});
