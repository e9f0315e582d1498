// A job that will never run again leaves nothing in `processing`, on both runners and for every
// way a job is lost: retries spent, an attempt past its expiry, a lease that expired because its
// worker died, and a dead-letter job whose hook runs later in another worker. Each case starts a
// lead batch, a single-lead validation and an email validation job through the real services,
// loses their jobs that way, and checks that the batch, the lead and the validation job reach a
// terminal state with the error, and that validation.failed was emitted for each.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BATCH_RUN_JOB, LEAD_VALIDATE_JOB } from "../../src/batches/batches.schemas.js";
import type { JobDefinition } from "../../src/jobs/catalog.js";
import { createJobQueue } from "../../src/jobs/create-job-queue.js";
import {
  deadLetterQueueOf,
  type JobHandler,
  type JobPolicy,
  type JobQueue,
} from "../../src/jobs/job-queue.js";
import { PgBossJobStore } from "../../src/jobs/pg-boss-job-store.js";
import { SqliteJobStore } from "../../src/jobs/sqlite-job-store.js";
import { systemClock } from "../../src/lib/clock.js";
import { EMAIL_VERIFY_JOB } from "../../src/validation/email-checks.service.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { waitFor } from "./queue-test-kit.js";

const LOST_QUEUES = [BATCH_RUN_JOB, LEAD_VALIDATE_JOB, EMAIL_VERIFY_JOB] as const;
/** One attempt, expiring fast: every path below ends the job on its first loss. */
const ONE_SHORT_ATTEMPT: JobPolicy = { retryLimit: 0, retryDelayMs: 0, expireInMs: 1000 };
const TWO_QUICK_ATTEMPTS: JobPolicy = { retryLimit: 1, retryDelayMs: 0, expireInMs: 30_000 };

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

    const call = async (method: "GET" | "POST", url: string, payload?: unknown) =>
      h.app.inject({
        method,
        url,
        headers: { "x-api-key": key },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const definitionOf = (name: string): JobDefinition => {
      const found = h.services.jobCatalog.find((job) => job.name === name);
      assert.ok(found?.onExhausted, `${name} has an onExhausted hook`);
      return found;
    };
    const redefine = async (policy: JobPolicy) => {
      for (const name of LOST_QUEUES) await h.services.queue.define(name, policy, { deadLetter: true });
    };

    /** A lead batch of two, a lead created with validation, and an email check: three jobs. */
    async function startWork(tag: string) {
      const emails = [`a.${tag}@acme.test`, `b.${tag}@acme.test`];
      const created = [];
      for (const email of emails) {
        const res = await call("POST", "/v1/leads", { email, validate: false });
        assert.equal(res.statusCode, 201, res.body);
        created.push(res.json().id as string);
      }
      const batch = await call("POST", "/v1/leads/validate", { leadIds: created });
      assert.equal(batch.statusCode, 200, batch.body);
      const single = await call("POST", "/v1/leads", { email: `c.${tag}@acme.test`, validate: true });
      assert.equal(single.statusCode, 201, single.body);
      const check = await h.services.emailChecks.check(account, `d.${tag}@acme.test`, 0, null);
      assert.notEqual(check.kind, "insufficient_credits");
      if (check.kind === "insufficient_credits") throw new Error("the account could not pay");
      return {
        batchId: batch.json().batchId as string,
        batchLeadIds: created,
        leadId: single.json().id as string,
        validationJobId: check.job.id,
      };
    }

    async function assertClosed(work: Awaited<ReturnType<typeof startWork>>, error: RegExp) {
      const { db } = h.services.database;
      const closed = async () => {
        const batch = await db
          .selectFrom("batches")
          .select("status")
          .where("id", "=", work.batchId)
          .executeTakeFirst();
        const job = await db
          .selectFrom("validation_jobs")
          .select("status")
          .where("id", "=", work.validationJobId)
          .executeTakeFirst();
        const processing = await db
          .selectFrom("leads")
          .select("id")
          .where("id", "in", [...work.batchLeadIds, work.leadId])
          .where("validation_status", "=", "processing")
          .execute();
        return batch?.status !== "processing" && job?.status !== "processing" && processing.length === 0;
      };
      await waitFor(closed, { timeoutMs: 60_000, intervalMs: 50, what: "the lost work to be closed" });

      const batch = await db
        .selectFrom("batches")
        .selectAll()
        .where("id", "=", work.batchId)
        .executeTakeFirstOrThrow();
      assert.equal(batch.status, "failed", "no item of the batch could be processed");
      assert.equal(Number(batch.failed), 2);
      const items = await db
        .selectFrom("batch_items")
        .selectAll()
        .where("batch_id", "=", work.batchId)
        .execute();
      for (const item of items) {
        assert.equal(item.status, "failed");
        assert.match(item.error ?? "", error);
      }
      const leads = await db
        .selectFrom("leads")
        .select(["id", "validation_status"])
        .where("id", "in", [...work.batchLeadIds, work.leadId])
        .execute();
      for (const lead of leads) assert.equal(lead.validation_status, "risky", `lead ${lead.id}`);
      const job = await db
        .selectFrom("validation_jobs")
        .selectAll()
        .where("id", "=", work.validationJobId)
        .executeTakeFirstOrThrow();
      assert.ok(job.status === "failed" || job.status === "timeout", job.status);
      assert.match(job.error ?? "", error);
      assert.ok(job.completed_at);

      const failedEvents = await db
        .selectFrom("events")
        .select("payload")
        .where("account_id", "=", account)
        .where("type", "=", "validation.failed")
        .execute();
      const payloads = failedEvents.map((row) => JSON.parse(row.payload) as Record<string, unknown>);
      const forBatch = payloads.find((p) => p.batchId === work.batchId);
      const forLead = payloads.find((p) => p.leadId === work.leadId);
      const forJob = payloads.find((p) => p.jobId === work.validationJobId);
      assert.ok(forBatch, "validation.failed for the batch");
      assert.match(String(forBatch.error), error);
      assert.ok(forLead, "validation.failed for the single lead");
      assert.match(String(forLead.error), error);
      assert.ok(forJob, "validation.failed for the validation job");
      assert.match(String(forJob.error), error);
    }

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
      // A worker without hooks fails the jobs for good and stops: their dead-letter copies wait.
      const first = createJobQueue(h.services.database, { pollIntervalMs: 50 });
      await redefineOn(first, TWO_QUICK_ATTEMPTS);
      await work(first, failing, false);
      for (const name of LOST_QUEUES) {
        await waitFor(async () => (await h.services.queue.stats(deadLetterQueueOf(name))).queued > 0, {
          timeoutMs: 30_000,
          what: `a dead-letter job of ${name}`,
        });
      }
      await first.stop({ graceful: false, timeoutMs: 0 });
      const batch = await call("GET", `/v1/batches/${started.batchId}`);
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
      });
    }
  });
}
