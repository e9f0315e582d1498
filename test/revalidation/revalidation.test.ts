// Scheduled re-validation on both dialects: the settings API (validation, permissions, null turns
// it off), and runs through the recurring job with a movable clock: the oldest verdicts first, the
// credit cap per run charged as one normal batch, never-validated and archived leads untouched.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Clock } from "../../src/lib/clock.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { waitFor } from "../support/process.js";

const DAY_MS = 86_400_000;
const START = Date.parse("2026-03-01T09:00:00.000Z");

for (const kind of dialects()) {
  describe(`re-validation schedule (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let net: FakeInternet;
    let h: Harness;
    let key: string;
    // Real time runs on from START (the queue's delayed jobs fall due); a test jumps days ahead.
    let offsetMs = START - Date.now();
    const nowMs = () => Date.now() + offsetMs;
    const clock: Clock = { now: () => new Date(nowMs()) };
    const call = (method: "GET" | "PUT" | "POST" | "DELETE", url: string, body?: unknown) =>
      h.call(key, method, url, body);
    const lead = async (id: string) => (await call("GET", `/v1/leads/${id}`)).json();

    before(async () => {
      if (skip) return;
      net = await startFakeInternet();
      h = await startHarness(
        kind,
        { ...net.env, ...UNLIMITED_RATE_ENV, REVALIDATION_TICK_MS: "150" },
        { websiteCa: net.ca, workers: true, clock },
      );
      key = await h.apiKey("acct_reval");
    });
    after(async () => {
      await h?.close();
      await net?.close();
    });

    it("answers null until a schedule is set, refuses bad input in the error shape, and null turns it off", {
      skip,
    }, async () => {
      assert.equal((await call("GET", "/v1/settings/revalidation")).json(), null);
      const bad = await call("PUT", "/v1/settings/revalidation", {
        olderThanDays: 0,
        everyHours: 24,
        maxCreditsPerRun: 1,
      });
      assert.equal(bad.statusCode, 422, bad.body);
      assert.equal(bad.json().error_code, "VALIDATION_ERROR");
      const tiny = await call("PUT", "/v1/settings/revalidation", {
        olderThanDays: 30,
        everyHours: 24,
        maxCreditsPerRun: 0.0004,
      });
      assert.equal(tiny.statusCode, 422, tiny.body);
      assert.equal(tiny.json().details.errors[0].field, "maxCreditsPerRun");
      const extra = await call("PUT", "/v1/settings/revalidation", {
        olderThanDays: 30,
        everyHours: 24,
        maxCreditsPerRun: 1,
        cron: "* * * * *",
      });
      assert.equal(extra.statusCode, 422, extra.body);

      const other = await h.apiKey("acct_reval_toggle");
      const set = await h.call(other, "PUT", "/v1/settings/revalidation", {
        olderThanDays: 90,
        everyHours: 168,
        maxCreditsPerRun: 0.5,
      });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(
        { ...(set.json() as object), nextRunAt: undefined, updatedAt: undefined },
        {
          olderThanDays: 90,
          everyHours: 168,
          maxCreditsPerRun: 0.5,
          maxDisplayCreditsPerRun: 500,
          maxLeadsPerRun: 250,
          nextRunAt: undefined,
          lastRun: null,
          updatedAt: undefined,
        },
      );
      assert.equal((await h.call(other, "GET", "/v1/settings/revalidation")).json().olderThanDays, 90);
      const empty = await h.call(other, "PUT", "/v1/settings/revalidation");
      assert.equal(empty.statusCode, 422, empty.body);
      assert.equal((await h.call(other, "GET", "/v1/settings/revalidation")).json().olderThanDays, 90);
      const off = await h.app.inject({
        method: "PUT",
        url: "/v1/settings/revalidation",
        headers: { "x-api-key": other, "content-type": "application/json" },
        payload: "null",
      });
      assert.equal(off.statusCode, 200, off.body);
      assert.equal(off.json(), null);
      assert.equal((await h.call(other, "GET", "/v1/settings/revalidation")).json(), null);
    });

    it("needs leads:write to change the schedule and leads:read to read it", { skip }, async () => {
      const res = await h.app.inject({
        method: "POST",
        url: "/v1/auth/keys",
        headers: { authorization: `Bearer ${await h.token("acct_reval")}` },
        payload: { name: "read only", permissions: ["leads:read"] },
      });
      assert.equal(res.statusCode, 201, res.body);
      const readOnly = res.json().api_key as string;
      assert.equal((await h.call(readOnly, "GET", "/v1/settings/revalidation")).statusCode, 200);
      const put = await h.call(readOnly, "PUT", "/v1/settings/revalidation", {
        olderThanDays: 30,
        everyHours: 24,
        maxCreditsPerRun: 1,
      });
      assert.equal(put.statusCode, 403, put.body);
      assert.match(put.body, /leads:write/);
    });

    it("re-validates the oldest verdicts up to the credit cap per run, as one charged batch, then the rest on the next run", {
      skip,
    }, async () => {
      const emails = ["alice", "bob", "carol", "dan", "eve"].map((n) => `${n}@catchall.test`);
      const bulk = await call("POST", "/v1/leads/bulk", {
        leads: emails.map((email) => ({ email })),
        validate: true,
      });
      assert.equal(bulk.statusCode, 200, bulk.body);
      const ids: string[] = bulk.json().leads.map((l: { id: string }) => l.id);
      const fresh = await call("POST", "/v1/leads", { email: "never@catchall.test", validate: false });
      assert.equal(fresh.statusCode, 201, fresh.body);
      await waitFor(
        async () => {
          const all = await Promise.all(ids.map(lead));
          return all.every((l) => l.validatedAt && l.validationStatus !== "processing") ? all : undefined;
        },
        "the first validation",
        30_000,
        50,
      );
      // Verdicts of different ages: ids[0] oldest (60 days) ... ids[3] 31 days; ids[4] is fresh.
      const { db } = h.services.database;
      for (const [index, id] of ids.slice(0, 4).entries()) {
        await db
          .updateTable("leads")
          .set({ validated_at: new Date(START - (60 - index * 9) * DAY_MS).toISOString() })
          .where("id", "=", id)
          .execute();
      }
      // An archived stale lead is never picked.
      const archived = (
        await call("POST", "/v1/leads", { email: "gone@catchall.test", validate: false })
      ).json();
      await db
        .updateTable("leads")
        .set({ validated_at: new Date(START - 90 * DAY_MS).toISOString() })
        .where("id", "=", archived.id)
        .execute();
      assert.equal((await call("DELETE", `/v1/leads/${archived.id}`)).statusCode, 200);
      const balanceBefore = (await call("GET", "/v1/credits")).json().displayCredits as number;

      // 0.006 stored credits = 3 validations at 0.002.
      const set = await call("PUT", "/v1/settings/revalidation", {
        olderThanDays: 30,
        everyHours: 24,
        maxCreditsPerRun: 0.006,
      });
      assert.equal(set.statusCode, 200, set.body);
      assert.equal(set.json().maxLeadsPerRun, 3);
      const first = await waitFor(
        async () => (await call("GET", "/v1/settings/revalidation")).json().lastRun ?? undefined,
        "the first run",
        20_000,
        50,
      );
      assert.equal(first.status, "started");
      assert.equal(first.leads, 3);
      const batch = await waitFor(
        async () => {
          const b = (await call("GET", `/v1/batches/${first.batchId}`)).json();
          return b.status === "processing" ? undefined : b;
        },
        "the run's batch",
        30_000,
        50,
      );
      assert.equal(batch.totalLeads, 3);
      const results = (await call("GET", `/v1/batches/${first.batchId}/results?limit=10`)).json().results;
      assert.deepEqual(
        results.map((r: { leadId: string }) => r.leadId).sort(),
        ids.slice(0, 3).sort(),
        "the three oldest verdicts",
      );
      const charged = (await call("GET", "/v1/credits/transactions?limit=5")).json().transactions[0];
      assert.equal(charged.amount, -0.006, JSON.stringify(charged));
      assert.equal((await call("GET", "/v1/credits")).json().displayCredits, balanceBefore - 6);
      for (const id of ids.slice(0, 3))
        assert.ok((await lead(id)).validatedAt >= first.at, "validated by the run");
      assert.equal((await lead(fresh.json().id)).validatedAt, null, "a lead never validated is not touched");

      // A day later: only the fourth stale verdict is left.
      offsetMs += DAY_MS + 60_000;
      const second = await waitFor(
        async () => {
          const run = (await call("GET", "/v1/settings/revalidation")).json().lastRun;
          return run.batchId !== first.batchId && run.at !== first.at ? run : undefined;
        },
        "the second run",
        20_000,
        50,
      );
      assert.equal(second.status, "started");
      assert.equal(second.leads, 1);
      const secondResults = (await call("GET", `/v1/batches/${second.batchId}/results`)).json().results;
      assert.deepEqual(
        secondResults.map((r: { leadId: string }) => r.leadId),
        [ids[3]],
      );
      await waitFor(
        async () => ((await lead(ids[3]!)).validationStatus === "processing" ? undefined : true),
        "the second batch",
        30_000,
        50,
      );

      // Another day: nothing is older than 30 days any more; nothing is charged.
      const spent = (await call("GET", "/v1/credits")).json().displayCredits as number;
      offsetMs += DAY_MS + 60_000;
      const third = await waitFor(
        async () => {
          const run = (await call("GET", "/v1/settings/revalidation")).json().lastRun;
          return run.at !== second.at ? run : undefined;
        },
        "the third run",
        20_000,
        50,
      );
      assert.deepEqual(
        { status: third.status, leads: third.leads, batchId: third.batchId },
        {
          status: "nothing_stale",
          leads: 0,
          batchId: null,
        },
      );
      assert.equal((await call("GET", "/v1/credits")).json().displayCredits, spent);
    });

    it("records a run the balance cannot pay for and charges nothing", { skip }, async () => {
      const poorKey = await h.apiKey("acct_reval_poor");
      const created = await h.call(poorKey, "POST", "/v1/leads", {
        email: "poor@catchall.test",
        validate: false,
      });
      const id = created.json().id as string;
      const { db } = h.services.database;
      await db
        .updateTable("leads")
        .set({ validated_at: new Date(nowMs() - 100 * DAY_MS).toISOString(), validation_status: "valid" })
        .where("id", "=", id)
        .execute();
      // Spend the balance down to 1 display credit: less than one validation.
      const balance = (await h.call(poorKey, "GET", "/v1/credits")).json().displayCredits as number;
      await h.services.credits.debit({
        accountId: "acct_reval_poor",
        amountMilli: balance - 1,
        reason: "test",
        reference: "test",
      });
      const set = await h.call(poorKey, "PUT", "/v1/settings/revalidation", {
        olderThanDays: 30,
        everyHours: 24,
        maxCreditsPerRun: 1,
      });
      assert.equal(set.statusCode, 200, set.body);
      const run = await waitFor(
        async () => (await h.call(poorKey, "GET", "/v1/settings/revalidation")).json().lastRun ?? undefined,
        "the refused run",
        20_000,
        50,
      );
      assert.deepEqual(
        { status: run.status, leads: run.leads, batchId: run.batchId },
        {
          status: "insufficient_credits",
          leads: 0,
          batchId: null,
        },
      );
      assert.equal((await h.call(poorKey, "GET", "/v1/credits")).json().displayCredits, 1);
    });
  });
}
