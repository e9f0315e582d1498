// A job that will never run again leaves nothing in `processing`, on both runners and for every
// way a job is lost: retries spent, an attempt past its expiry, a lease that expired because its
// worker died, a dead-letter job whose hook runs later in another worker, and a dead-letter job
// taken by a worker that died before running the hook. Each case starts a lead batch, a
// single-lead validation and an email validation job through the real services (lost-work-kit),
// loses their jobs that way, and checks that the batch, the lead and the validation job reach a
// terminal state with the error, and that validation.failed was emitted for each.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { JobDefinition } from "../../src/jobs/catalog.js";
import { createJobQueue } from "../../src/jobs/create-job-queue.js";
import {
  DEAD_LETTER_POLICY,
  deadLetterQueueOf,
  type JobHandler,
  type JobPolicy,
  type JobQueue,
} from "../../src/jobs/job-queue.js";
import { PgBossJobStore } from "../../src/jobs/pg-boss-job-store.js";
import { SqliteJobStore } from "../../src/jobs/sqlite-job-store.js";
import { systemClock } from "../../src/lib/clock.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { waitFor } from "../support/wait-for.js";
import {
  assertWorkClosed,
  LOST_QUEUES,
  type LostWork,
  startLostWork,
  type WorkOwner,
} from "./lost-work-kit.js";

/** One attempt, expiring fast: every path below ends the job on its first loss. */
const ONE_SHORT_ATTEMPT: JobPolicy = { retryLimit: 0, retryDelayMs: 0, expireInMs: 1000 };
const TWO_QUICK_ATTEMPTS: JobPolicy = { retryLimit: 1, retryDelayMs: 0, expireInMs: 30_000 };
/** Dead-letter jobs as in production but with a 1 s expiry (the queue's deadLetterPolicy): the
 *  case of a hook lost with its worker waits that out in real time, since pg-boss expires jobs by
 *  the database's clock, which no test can move. */
const QUICK_DEAD_LETTERS: JobPolicy = { ...DEAD_LETTER_POLICY, expireInMs: 1000, retryDelayMs: 200 };

const failing: JobHandler = async () => {
  throw new Error("the engine blew up");
};
/** Runs until its attempt is aborted at the expiry, as a check stuck on a dead server would. */
const hanging: JobHandler = (job) =>
  new Promise((_resolve, reject) => {
    job.signal.addEventListener("abort", () => reject(job.signal.reason), { once: true });
  });

for (const kind of dialects()) {
  describe(`lost jobs are closed (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let key = "";
    const account = `acct_lifecycle_${kind}`;

    before(async () => {
      if (skip) return;
      // No workers: each case runs the lost queues' handlers it needs, with the real hooks.
      h = await startHarness(kind, { ...UNLIMITED_RATE_ENV, JOB_MAINTENANCE_INTERVAL_MS: "200" });
      key = await h.apiKey(account);
    });
    after(() => h?.close());

    const owner = (): WorkOwner => ({ h, account, key });
    const startWork = (tag: string) => startLostWork(owner(), tag);
    const assertClosed = (work: LostWork, error: RegExp, options?: { timeoutMs?: number }) =>
      assertWorkClosed(owner(), work, error, options);
    const definitionOf = (name: string): JobDefinition => {
      const found = h.services.jobCatalog.find((job) => job.name === name);
      assert.ok(found?.onExhausted, `${name} has an onExhausted hook`);
      return found;
    };
    const redefine = async (policy: JobPolicy) => {
      for (const name of LOST_QUEUES) await h.services.queue.define(name, policy, { deadLetter: true });
    };

    /** Runs the lost queues with `handler` and their real onExhausted hooks. */
    const work = async (queue: JobQueue, handler: JobHandler, withHooks = true) => {
      for (const name of LOST_QUEUES) {
        const hook = withHooks ? { onExhausted: definitionOf(name).onExhausted! } : {};
        await queue.work(name, { concurrency: 2, pollIntervalMs: 50, ...hook }, handler);
      }
    };

    it("closes work whose jobs spent their retries", { skip }, async () => {
      await redefine(TWO_QUICK_ATTEMPTS);
      const started = await startWork("retries");
      const queue = createJobQueue(h.services.database, { pollIntervalMs: 50, maintenanceIntervalMs: 200 });
      try {
        await redefineOn(queue, TWO_QUICK_ATTEMPTS);
        await work(queue, failing);
        await assertClosed(started, /the engine blew up/);
      } finally {
        await queue.stop({ graceful: false, timeoutMs: 0 });
      }
    });

    it("closes work whose last attempt ran past its expiry", { skip }, async () => {
      await redefine(ONE_SHORT_ATTEMPT);
      const started = await startWork("expiry");
      const queue = createJobQueue(h.services.database, { pollIntervalMs: 50, maintenanceIntervalMs: 200 });
      try {
        await redefineOn(queue, ONE_SHORT_ATTEMPT);
        await work(queue, hanging);
        await assertClosed(started, /expir|timeout/i);
      } finally {
        await queue.stop({ graceful: false, timeoutMs: 0 });
      }
    });

    it("closes work whose worker died holding it, once the lease expires", { skip }, async () => {
      await redefine(ONE_SHORT_ATTEMPT);
      const started = await startWork("lease");
      // A worker that claims the three jobs and dies: nothing will complete, fail or release them.
      const dead = deadWorkerStore();
      await dead.start();
      for (const name of LOST_QUEUES) {
        await waitFor(async () => (await dead.claim(name, 5)).length > 0, { what: `a ${name} job claimed` });
      }
      const queue = createJobQueue(h.services.database, { pollIntervalMs: 50, maintenanceIntervalMs: 200 });
      try {
        await redefineOn(queue, ONE_SHORT_ATTEMPT);
        // The live worker's handler must not be what closes the work: it never gets the jobs.
        await work(queue, async () => assert.fail("a claimed job was run twice"));
        await assertClosed(started, /lease|timeout|expire/i);
      } finally {
        await queue.stop({ graceful: false, timeoutMs: 0 });
        await dead.close();
      }
    });

    it("closes work from the dead-letter queue in a worker started after the failure", { skip }, async () => {
      await redefine(TWO_QUICK_ATTEMPTS);
      const started = await startWork("deadletter");
      await failForGoodWithoutHooks();
      const batch = await h.app.inject({
        method: "GET",
        url: `/v1/batches/${started.batchId}`,
        headers: { "x-api-key": key },
      });
      assert.equal(batch.json().status, "processing", "nothing closed it yet");
      // Another worker, with the hooks, drains the dead-letter queues.
      const second = createJobQueue(h.services.database, { pollIntervalMs: 50 });
      try {
        await redefineOn(second, TWO_QUICK_ATTEMPTS);
        await work(second, failing);
        await assertClosed(started, /the engine blew up/);
      } finally {
        await second.stop({ graceful: false, timeoutMs: 0 });
      }
    });

    it("closes work whose dead-letter job was taken by a worker that then died", { skip }, async () => {
      await redefine(TWO_QUICK_ATTEMPTS);
      const started = await startWork("lost-hook");
      await failForGoodWithoutHooks();
      // A worker takes the dead-letter jobs and is killed before it runs a hook: nothing will
      // complete, fail or release them.
      const dead = deadWorkerStore();
      await dead.start();
      for (const name of LOST_QUEUES) {
        await dead.define(name, TWO_QUICK_ATTEMPTS, deadLetterQueueOf(name));
        const [taken] = await dead.claim(deadLetterQueueOf(name), 5);
        assert.ok(taken, `the dead-letter job of ${name} is taken`);
        assert.equal(
          taken.expireInMs,
          QUICK_DEAD_LETTERS.expireInMs,
          "the hook's attempt has its own expiry",
        );
      }
      // A live worker with the hooks runs them once those attempts expire.
      const live = createJobQueue(h.services.database, {
        pollIntervalMs: 50,
        maintenanceIntervalMs: 200,
        deadLetterPolicy: QUICK_DEAD_LETTERS,
      });
      try {
        await redefineOn(live, TWO_QUICK_ATTEMPTS);
        await work(live, failing);
        // The expiry, then the dead-letter retry's delay (at most twice the policy's).
        const timeoutMs = QUICK_DEAD_LETTERS.expireInMs + 2 * QUICK_DEAD_LETTERS.retryDelayMs + 30_000;
        await assertClosed(started, /the engine blew up/, { timeoutMs });
      } finally {
        await live.stop({ graceful: false, timeoutMs: 0 });
        await dead.close();
      }
    });

    /** A worker without hooks fails the lost queues' jobs for good and stops: their dead-letter
     *  copies wait in the dead-letter queues. */
    async function failForGoodWithoutHooks() {
      const first = createJobQueue(h.services.database, {
        pollIntervalMs: 50,
        deadLetterPolicy: QUICK_DEAD_LETTERS,
      });
      try {
        await redefineOn(first, TWO_QUICK_ATTEMPTS);
        await work(first, failing, false);
        for (const name of LOST_QUEUES) {
          await waitFor(async () => (await h.services.queue.stats(deadLetterQueueOf(name))).queued > 0, {
            timeoutMs: 30_000,
            what: `a dead-letter job of ${name}`,
          });
        }
      } finally {
        await first.stop({ graceful: false, timeoutMs: 0 });
      }
    }

    async function redefineOn(queue: JobQueue, policy: JobPolicy) {
      for (const name of LOST_QUEUES) await queue.define(name, policy, { deadLetter: true });
    }

    /** The store of a worker process that is about to die, on the harness's database. */
    function deadWorkerStore() {
      const { database } = h.services;
      if (database.kind === "sqlite") {
        return new SqliteJobStore(database.db, {
          clock: systemClock,
          random: Math.random,
          completedRetentionMs: 3600_000,
          failedRetentionMs: 3600_000,
          deadLetterPolicy: QUICK_DEAD_LETTERS,
        });
      }
      return new PgBossJobStore({
        connectionString: database.pgPool!.options.connectionString!,
        schema: "pgboss",
        maxConnections: 2,
        // Its maintenance must not be what expires the jobs: the living worker's does.
        maintenanceIntervalMs: 3600_000,
        completedRetentionMs: 3600_000,
        failedRetentionMs: 3600_000,
        onError: () => {},
        lockPool: database.pgPool!,
        deadLetterPolicy: QUICK_DEAD_LETTERS,
      });
    }
  });
}
