// One contract for both runners: the embedded SQLite queue and pg-boss on PostgreSQL.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  createJobQueue,
  type JobPolicy,
  type JobQueue,
  type JobQueueOptions,
  QueueNotDefinedError,
} from "../../src/jobs/index.js";
import { createTestDatabase, dialects, skipReasonFor, type TestDatabase } from "../support/db.js";
import { waitFor, within } from "../support/wait-for.js";
import { createGate, killed, startHangingWorker, uniqueQueueName } from "./queue-test-kit.js";

// Short everything: pg-boss works in whole seconds for delays and expiry, so 1 s is its floor.
const FAST: JobQueueOptions = { pollIntervalMs: 25, maintenanceIntervalMs: 1000, onError: () => {} };
const POLICY: JobPolicy = { retryLimit: 0, retryDelayMs: 0, expireInMs: 30_000 };
/** Timestamps come from the database on pg-boss and from Node on SQLite: allow for rounding. */
const CLOCK_SLACK_MS = 30;

for (const kind of dialects()) {
  describe(`job queue contract (${kind})`, { skip: await skipReasonFor(kind) }, () => {
    let test: TestDatabase;
    let observer: JobQueue;
    const queues: JobQueue[] = [];

    async function newQueue(name: string, policy: JobPolicy = POLICY): Promise<JobQueue> {
      const queue = createJobQueue(test.database, FAST);
      queues.push(queue);
      await queue.define(name, policy);
      return queue;
    }

    before(async () => {
      test = await createTestDatabase(kind);
      observer = createJobQueue(test.database, FAST);
      await observer.start();
    });

    after(async () => {
      await Promise.all(queues.map((q) => q.stop({ graceful: false, timeoutMs: 0 })));
      await observer.stop({ graceful: false, timeoutMs: 0 });
      await test.destroy();
    });

    it("delivers a sent job's data to one worker once and marks it completed", async () => {
      const name = uniqueQueueName("deliver");
      const queue = await newQueue(name);
      const seen: { id: string; data: unknown; retryCount: number }[] = [];
      await queue.work(name, { concurrency: 2 }, async (job) => {
        seen.push({ id: job.id, data: job.data, retryCount: job.retryCount });
      });
      const id = await queue.send(name, { email: "a@example.test", n: 1 });
      assert.ok(id);
      await waitFor(async () => (await observer.getJob(name, id))?.state === "completed", {
        what: "completion",
      });
      assert.deepEqual(seen, [{ id, data: { email: "a@example.test", n: 1 }, retryCount: 0 }]);
    });

    it("retries a failing job after its retry delay and completes it when an attempt succeeds", async () => {
      const name = uniqueQueueName("retry");
      const queue = await newQueue(name, { ...POLICY, retryLimit: 2, retryDelayMs: 300 });
      const attempts: { retryCount: number; atMs: number }[] = [];
      await queue.work(name, { concurrency: 1 }, async (job) => {
        attempts.push({ retryCount: job.retryCount, atMs: Date.now() });
        if (job.retryCount < 2) throw new Error(`attempt ${job.retryCount} failed`);
      });
      const id = (await queue.send(name, {}))!;
      await waitFor(async () => (await observer.getJob(name, id))?.state === "retry", { what: "a retry" });
      const between = await observer.getJob(name, id);
      assert.equal(between?.retryCount, 1, "the failed attempt is counted while the retry waits");
      assert.equal(between?.lastError, "attempt 0 failed");
      await waitFor(async () => (await observer.getJob(name, id))?.state === "completed", {
        what: "completion",
      });
      assert.deepEqual(
        attempts.map((a) => a.retryCount),
        [0, 1, 2],
      );
      for (let i = 1; i < attempts.length; i++) {
        const gapMs = attempts[i]!.atMs - attempts[i - 1]!.atMs;
        assert.ok(
          gapMs >= 300 - CLOCK_SLACK_MS,
          `retry ${i} came after ${gapMs} ms, before its 300 ms delay`,
        );
      }
    });

    it("fails a job for good after its retry limit and keeps the last error", async () => {
      const name = uniqueQueueName("fail");
      const queue = await newQueue(name, { ...POLICY, retryLimit: 1 });
      let attempts = 0;
      await queue.work(name, { concurrency: 1 }, async (job) => {
        attempts += 1;
        throw new Error(`smtp timeout on attempt ${job.retryCount}`);
      });
      const id = (await queue.send(name, {}))!;
      await waitFor(async () => (await observer.getJob(name, id))?.state === "failed", { what: "failure" });
      const job = await observer.getJob(name, id);
      assert.equal(attempts, 2);
      assert.equal(job?.retryCount, 1);
      assert.equal(job?.lastError, "smtp timeout on attempt 1");
    });

    it("never runs more jobs of a queue at once than its concurrency", async () => {
      const name = uniqueQueueName("concurrency");
      const queue = await newQueue(name);
      const gates = [createGate(), createGate(), createGate(), createGate(), createGate()];
      let started = 0;
      let running = 0;
      let maxRunning = 0;
      await queue.work(name, { concurrency: 2 }, async () => {
        const gate = gates[started]!;
        started += 1;
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await gate.promise;
        running -= 1;
      });
      for (let i = 0; i < gates.length; i++) await queue.send(name, { i });
      for (let released = 0; released < gates.length; released++) {
        const expected = Math.min(gates.length, released + 2);
        await waitFor(() => started === expected, { what: `${expected} started jobs` });
        await waitFor(async () => (await observer.stats(name)).active === expected - released, {
          what: `${expected - released} active jobs`,
        });
        gates[released]!.open();
      }
      await waitFor(async () => (await observer.stats(name)).active === 0, { what: "all jobs done" });
      assert.equal(maxRunning, 2);
    });

    it("holds a job sent with startAfterMs until that time has passed", async () => {
      const name = uniqueQueueName("later");
      const queue = await newQueue(name);
      let received!: (atMs: number) => void;
      const receivedAt = new Promise<number>((resolve) => {
        received = resolve;
      });
      await queue.work(name, { concurrency: 1 }, async () => {
        received(Date.now());
      });
      const sentAtMs = Date.now();
      await queue.send(name, {}, { startAfterMs: 700 });
      const early = await observer.stats(name);
      assert.deepEqual(early, { queued: 1, active: 0, oldestQueuedAgeMs: null });
      const receivedAtMs = await within(receivedAt, "the delayed job");
      assert.ok(receivedAtMs - sentAtMs >= 700 - CLOCK_SLACK_MS, `ran after ${receivedAtMs - sentAtMs} ms`);
    });

    it("drops a send whose singletonKey matches a job still waiting, and accepts it once that job started", async () => {
      const name = uniqueQueueName("singleton");
      const queue = await newQueue(name);
      const first = await queue.send(name, { n: 1 }, { singletonKey: "acct_1" });
      const duplicate = await queue.send(name, { n: 2 }, { singletonKey: "acct_1" });
      const other = await queue.send(name, { n: 3 }, { singletonKey: "acct_2" });
      const unkeyed = [await queue.send(name, { n: 4 }), await queue.send(name, { n: 5 })];
      assert.ok(first && other && unkeyed.every(Boolean));
      assert.equal(duplicate, null);
      assert.equal((await observer.stats(name)).queued, 4);

      const gate = createGate();
      const seen: unknown[] = [];
      await queue.work(name, { concurrency: 4 }, async (job) => {
        seen.push(job.data);
        await gate.promise;
      });
      await waitFor(() => seen.length === 4, { what: "four running jobs" });
      const again = await queue.send(name, { n: 6 }, { singletonKey: "acct_1" });
      assert.ok(again, "a new job with the key is accepted while the first one runs");
      gate.open();
      await waitFor(
        async () => (await observer.stats(name)).queued + (await observer.stats(name)).active === 0,
        {
          what: "the queue to drain",
        },
      );
      assert.deepEqual(seen.map((d) => (d as { n: number }).n).sort(), [1, 3, 4, 5, 6]);
    });

    it("hands jobs back on stop so a new queue instance on the same database runs them", async () => {
      const name = uniqueQueueName("restart");
      const first = await newQueue(name);
      let signal: AbortSignal | undefined;
      await first.work(name, { concurrency: 1 }, async (job) => {
        signal = job.signal;
        await new Promise(() => {});
      });
      const running = (await first.send(name, { n: 1 }))!;
      const waiting = (await first.send(name, { n: 2 }))!;
      await waitFor(() => signal !== undefined, { what: "the first job to start" });
      await first.stop({ graceful: true, timeoutMs: 50 });
      assert.equal(signal?.aborted, true, "the abandoned attempt is told to stop");
      const handedBack = await observer.getJob(name, running);
      assert.equal(handedBack?.state, "retry");
      assert.equal(handedBack?.retryCount, 0, "a hand-back does not use up a retry");

      const second = await newQueue(name);
      const seen: { id: string; retryCount: number }[] = [];
      await second.work(name, { concurrency: 1 }, async (job) => {
        seen.push({ id: job.id, retryCount: job.retryCount });
      });
      await waitFor(() => seen.length === 2, { what: "both jobs on the new instance" });
      assert.deepEqual(seen.map((s) => s.id).sort(), [running, waiting].sort());
      assert.ok(seen.every((s) => s.retryCount === 0));
    });

    it("retries a job whose worker process was SIGKILLed once the job's expiry has passed", async () => {
      const name = uniqueQueueName("crash");
      const producer = await newQueue(name, { ...POLICY, retryLimit: 2, expireInMs: 1000 });
      const id = (await producer.send(name, { n: 1 }))!;
      const { child, jobId } = await startHangingWorker(test.url, name, 1000);
      assert.equal(jobId, id);
      await killed(child);
      assert.equal(
        (await observer.getJob(name, id))?.state,
        "active",
        "the dead process left the job active",
      );

      const seen: number[] = [];
      await producer.work(name, { concurrency: 1 }, async (job) => {
        seen.push(job.retryCount);
      });
      await waitFor(async () => (await observer.getJob(name, id))?.state === "completed", {
        what: "the retried job to complete",
      });
      assert.deepEqual(seen, [1], "the lost attempt counts as one failed attempt");
    });

    it("aborts and fails an attempt that outlives its expiry", async () => {
      const name = uniqueQueueName("expiry");
      const queue = await newQueue(name, { ...POLICY, expireInMs: 1000 });
      let abortSeen!: () => void;
      const aborted = new Promise<void>((resolve) => {
        abortSeen = resolve;
      });
      await queue.work(name, { concurrency: 1 }, async (job) => {
        await new Promise<void>((resolve) => job.signal.addEventListener("abort", () => resolve()));
        abortSeen();
      });
      const id = (await queue.send(name, {}))!;
      await within(aborted, "the attempt's signal to abort");
      await waitFor(async () => (await observer.getJob(name, id))?.state === "failed", {
        what: "the expiry",
      });
      assert.match((await observer.getJob(name, id))?.lastError ?? "", /expir|timeout/);
    });

    it("enqueues in the caller's transaction: a rollback leaves no job, a commit leaves one", async () => {
      const name = uniqueQueueName("trx");
      const queue = await newQueue(name);
      const now = new Date().toISOString();
      const account = (id: string) => ({ id, balance_milli: 0, created_at: now, updated_at: now });
      let rolledBackJob: string | null = null;
      await assert.rejects(
        test.database.db.transaction().execute(async (trx) => {
          await trx.insertInto("accounts").values(account("acct_rolled_back")).execute();
          rolledBackJob = await queue.send(name, { n: 1 }, { trx });
          throw new Error("credit debit failed");
        }),
        /credit debit failed/,
      );
      assert.ok(rolledBackJob);
      assert.equal(await observer.getJob(name, rolledBackJob), null);
      assert.equal((await observer.stats(name)).queued, 0);

      const committed = await test.database.db.transaction().execute(async (trx) => {
        await trx.insertInto("accounts").values(account("acct_committed")).execute();
        return queue.send(name, { n: 2 }, { trx });
      });
      assert.ok(committed);
      assert.equal((await observer.getJob(name, committed))?.state, "created");
      assert.equal((await observer.stats(name)).queued, 1);
    });

    it("reports queued and active counts and how long the oldest due job has waited", async () => {
      const name = uniqueQueueName("stats");
      const queue = await newQueue(name);
      assert.deepEqual(await observer.stats(name), { queued: 0, active: 0, oldestQueuedAgeMs: null });
      await queue.send(name, { n: 1 });
      await queue.send(name, { n: 2 });
      await waitFor(async () => ((await observer.stats(name)).oldestQueuedAgeMs ?? 0) >= 50, {
        what: "the oldest job to age",
      });
      const waiting = await observer.stats(name);
      assert.equal(waiting.queued, 2);
      assert.equal(waiting.active, 0);

      const gate = createGate();
      await queue.work(name, { concurrency: 1 }, () => gate.promise);
      await waitFor(async () => (await observer.stats(name)).active === 1, { what: "one active job" });
      assert.equal((await observer.stats(name)).queued, 1);
      const all = await observer.stats();
      assert.ok(all.queued >= 1 && all.active >= 1, "stats() without a name covers every queue");
      gate.open();
      await waitFor(
        async () => (await observer.stats(name)).queued + (await observer.stats(name)).active === 0,
        {
          what: "the queue to drain",
        },
      );
    });

    it("waits on a graceful stop for the running job to finish before resolving", async () => {
      const name = uniqueQueueName("graceful");
      const queue = await newQueue(name);
      const gate = createGate();
      let startedId: string | undefined;
      let finished = false;
      await queue.work(name, { concurrency: 1 }, async (job) => {
        startedId = job.id;
        await gate.promise;
        finished = true;
      });
      const id = (await queue.send(name, {}))!;
      await waitFor(() => startedId === id, { what: "the job to start" });
      // The stop's promise says whether the job had finished when it resolved.
      const stopping = queue.stop({ graceful: true, timeoutMs: 10_000 }).then(() => finished);
      // A stop that does not wait would resolve in this time; one that waits is still pending.
      const early = await Promise.race([
        stopping.then(() => "resolved"),
        new Promise((resolve) => setTimeout(() => resolve("waiting"), 200)),
      ]);
      assert.equal(early, "waiting", "stop waits while the job runs");
      gate.open();
      assert.equal(await within(stopping, "the graceful stop"), true, "stop resolved after the job finished");
      assert.equal((await observer.getJob(name, id))?.state, "completed");
    });

    it("refuses to send to or work a queue that was never defined", async () => {
      const queue = createJobQueue(test.database, FAST);
      queues.push(queue);
      await queue.start();
      await assert.rejects(queue.send("never-defined", {}), QueueNotDefinedError);
      await assert.rejects(
        queue.work("never-defined", { concurrency: 1 }, async () => {}),
        QueueNotDefinedError,
      );
      assert.equal(await queue.ping(), true);
    });
  });
}
