// The stalled-work sweeper is the net under the onExhausted hooks: work whose jobs and dead-letter
// jobs were all lost (a wiped queue) is closed once past its deadline, exactly like a hook would
// close it, and counted in leadcheck_sweeper_closed_total. Work already finished, and work still
// within its deadline, is left alone. Both stores; the services' clock is moved past the deadlines.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { deadLetterQueueOf } from "../../src/jobs/job-queue.js";
import type { Clock } from "../../src/lib/clock.js";
import type { SweptKind } from "../../src/lifecycle/stalled-work.sweeper.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import {
  assertWorkClosed,
  isWorkClosed,
  LOST_QUEUES,
  type LostWork,
  startLostWork,
  validationFailedPayloads,
  type WorkOwner,
} from "./lost-work-kit.js";

/** Past every default deadline: a batch's 30 minutes without progress, a lead's 2 hours, a
 *  validation job's 5 minutes plus 10 of grace. */
const LATER_MS = 3 * 3600_000;

for (const kind of dialects()) {
  describe(`stalled-work sweeper (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let key = "";
    const account = `acct_sweeper_${kind}`;
    let offsetMs = 0;
    const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };

    before(async () => {
      if (skip) return;
      // No workers: nothing runs the jobs, so only the sweeper can close the work.
      h = await startHarness(kind, UNLIMITED_RATE_ENV, { clock });
      key = await h.apiKey(account);
    });
    after(() => h?.close());

    const owner = (): WorkOwner => ({ h, account, key });
    const closedCount = async (): Promise<Record<SweptKind, number>> => {
      const { values } = await h.services.metrics.sweeperClosed.get();
      const count = (kind: SweptKind) => values.find((v) => v.labels.kind === kind)?.value ?? 0;
      return { batch: count("batch"), lead: count("lead"), validation_job: count("validation_job") };
    };

    /** The queue lost every job of the work's queues and of their dead-letter queues. */
    async function loseEveryJob() {
      const names = LOST_QUEUES.flatMap((name) => [name, deadLetterQueueOf(name)]);
      const { database } = h.services;
      if (database.kind === "sqlite")
        await database.db.deleteFrom("jobs").where("name", "in", names).execute();
      else await database.pgPool!.query("DELETE FROM pgboss.job WHERE name = ANY($1)", [names]);
      for (const name of names) assert.equal((await h.services.queue.stats(name)).queued, 0, name);
    }

    /** Closes the work as its hooks would have, before the sweep. */
    async function finish(work: LostWork) {
      const { batchRunner, leadValidation, emailChecks } = h.services;
      assert.ok(await batchRunner.failRemaining(work.batchId, "closed by its hook"));
      assert.ok(await leadValidation.failOne(account, work.leadId, "closed by its hook"));
      assert.ok(await emailChecks.failJob(work.validationJobId, "closed by its hook"));
    }

    /** What the sweeper must not change about finished work. */
    async function snapshot(work: LostWork) {
      const { db } = h.services.database;
      return {
        batch: await db.selectFrom("batches").selectAll().where("id", "=", work.batchId).executeTakeFirst(),
        items: await db.selectFrom("batch_items").selectAll().where("batch_id", "=", work.batchId).execute(),
        leads: await db
          .selectFrom("leads")
          .select(["id", "validation_status", "updated_at"])
          .where("id", "in", [...work.batchLeadIds, work.leadId])
          .orderBy("id")
          .execute(),
        job: await db
          .selectFrom("validation_jobs")
          .selectAll()
          .where("id", "=", work.validationJobId)
          .executeTakeFirst(),
      };
    }

    it("closes work whose jobs and dead-letter jobs were all lost, once past its deadline, and nothing else", {
      skip,
    }, async () => {
      const lost = await startLostWork(owner(), "lost");
      const finished = await startLostWork(owner(), "finished");
      await finish(finished);
      await loseEveryJob();
      const metricBefore = await closedCount();

      const early = await h.services.sweeper.sweep();
      assert.deepEqual(early, { batch: 0, lead: 0, validation_job: 0 }, "nothing is past its deadline yet");
      assert.equal(await isWorkClosed(h, lost), false);

      offsetMs = LATER_MS;
      const fresh = await startLostWork(owner(), "fresh");
      const finishedBefore = await snapshot(finished);
      const failedBefore = (await validationFailedPayloads(h, account)).length;

      const closed = await h.services.sweeper.sweep();

      assert.deepEqual(closed, { batch: 1, lead: 1, validation_job: 1 });
      await assertWorkClosed(owner(), lost, /was lost/);
      const job = await h.services.database.db
        .selectFrom("validation_jobs")
        .select("status")
        .where("id", "=", lost.validationJobId)
        .executeTakeFirstOrThrow();
      assert.equal(job.status, "timeout", "a validation job past its 5 minutes ends timeout");
      const metricAfter = await closedCount();
      assert.deepEqual(
        {
          batch: metricAfter.batch - metricBefore.batch,
          lead: metricAfter.lead - metricBefore.lead,
          validation_job: metricAfter.validation_job - metricBefore.validation_job,
        },
        { batch: 1, lead: 1, validation_job: 1 },
        "leadcheck_sweeper_closed_total counts each close",
      );

      assert.deepEqual(await snapshot(finished), finishedBefore, "finished work is left as it was");
      assert.equal(await isWorkClosed(h, fresh), false, "work within its deadline stays processing");
      const failed = await validationFailedPayloads(h, account);
      assert.equal(failed.length, failedBefore + 3, "one validation.failed per closed piece of work");
      for (const payload of failed.slice(failedBefore)) {
        assert.ok(
          payload.batchId === lost.batchId ||
            payload.leadId === lost.leadId ||
            payload.jobId === lost.validationJobId,
          `validation.failed only for the lost work: ${JSON.stringify(payload)}`,
        );
      }

      assert.deepEqual(
        await h.services.sweeper.sweep(),
        { batch: 0, lead: 0, validation_job: 0 },
        "a second sweep finds nothing left",
      );
      assert.deepEqual(await closedCount(), metricAfter);
    });
  });
}
