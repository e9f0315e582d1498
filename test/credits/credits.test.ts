import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, TEST_ADMIN_TOKEN } from "../support/harness.js";

for (const kind of dialects()) {
  describe(`credits (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    before(async () => {
      if (!skip) h = await startHarness(kind, { NEW_ACCOUNT_MILLI_CREDITS: "250" });
    });
    after(async () => h?.close());

    it("lets exactly 250 of 500 concurrent debits through, ends at 0, and the ledger sums to the balance", {
      skip,
    }, async () => {
      const credits = h.services.credits;
      await credits.ensureAccount("acct_race");
      const outcomes = await Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          credits.debit({
            accountId: "acct_race",
            amountMilli: 1,
            reason: "website check",
            reference: `r${i}`,
          }),
        ),
      );
      const ok = outcomes.filter((o) => o.outcome.kind === "debited").length;
      const refused = outcomes.filter((o) => o.outcome.kind === "insufficient_credits").length;
      assert.equal(ok, 250);
      assert.equal(refused, 250);
      const balance = await credits.balance("acct_race");
      assert.equal(balance.credits, 0);
      assert.equal(await credits.ledgerSum("acct_race"), 0);
    });

    it("never charges twice for the same idempotency key", { skip }, async () => {
      const credits = h.services.credits;
      await credits.ensureAccount("acct_idem");
      const req = {
        accountId: "acct_idem",
        amountMilli: 2,
        reason: "lead validation",
        idempotencyKey: "job_1:charge",
      };
      const first = await credits.debit(req);
      const second = await credits.debit(req);
      assert.equal(first.outcome.kind, "debited");
      assert.ok(second.outcome.kind === "debited" && second.outcome.alreadyApplied);
      assert.equal((await credits.balance("acct_idem")).displayCredits, 248);
    });

    it("rolls the debit back when the work paid for in the same transaction fails", { skip }, async () => {
      const credits = h.services.credits;
      await credits.ensureAccount("acct_tx");
      await assert.rejects(
        credits.debit({ accountId: "acct_tx", amountMilli: 5, reason: "x" }, async () => {
          throw new Error("enqueue failed");
        }),
      );
      assert.equal((await credits.balance("acct_tx")).displayCredits, 250);
      assert.equal(await credits.ledgerSum("acct_tx"), 250);
    });

    it("fires credits.low once on the crossing below 0.1 and credits.depleted at 0", { skip }, async () => {
      const credits = h.services.credits;
      await credits.ensureAccount("acct_low");
      await credits.debit({ accountId: "acct_low", amountMilli: 100, reason: "a" }); // 250 -> 150
      await credits.debit({ accountId: "acct_low", amountMilli: 60, reason: "b" }); // 150 -> 90: low
      await credits.debit({ accountId: "acct_low", amountMilli: 10, reason: "c" }); // 90 -> 80: no event
      await credits.debit({ accountId: "acct_low", amountMilli: 80, reason: "d" }); // 80 -> 0: depleted
      const events = await h.services.database.db
        .selectFrom("events")
        .select(["type", "payload"])
        .where("account_id", "=", "acct_low")
        .orderBy("id")
        .execute();
      assert.deepEqual(
        events.map((e) => e.type),
        ["credits.low", "credits.depleted"],
      );
      const low = JSON.parse(events[0]!.payload);
      assert.equal(low.event, "credits.low");
      assert.equal(low.userId, "acct_low");
      assert.equal(low.currentBalance, 0.09);
      assert.equal(low.threshold, 0.1);
      assert.ok(low.timestamp && low.eventId);
    });

    it("grants credits through the admin API and lists the ledger newest first", { skip }, async () => {
      const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
      const grant = await h.app.inject({
        method: "POST",
        url: "/v1/admin/accounts/acct_grant/credits",
        headers: admin,
        payload: { credits: 1.5, reason: "purchase 42" },
      });
      assert.equal(grant.statusCode, 200);
      assert.equal(grant.json().credits, 1.75);
      assert.equal(grant.json().lastPurchase.credits, 1.5);

      const bad = await h.app.inject({
        method: "POST",
        url: "/v1/admin/accounts/acct_grant/credits",
        headers: admin,
        payload: { credits: 0.0001 },
      });
      assert.equal(bad.statusCode, 422);
      const neg = await h.app.inject({
        method: "POST",
        url: "/v1/admin/accounts/acct_grant/credits",
        headers: admin,
        payload: { credits: -1 },
      });
      assert.equal(neg.statusCode, 422);
      const wrong = await h.app.inject({
        method: "POST",
        url: "/v1/admin/accounts/acct_grant/credits",
        headers: { authorization: "Bearer nope" },
        payload: { credits: 1 },
      });
      assert.equal(wrong.statusCode, 401);

      const tx = await h.app.inject({
        method: "GET",
        url: "/v1/credits/transactions?limit=1",
        headers: { authorization: `Bearer ${await h.token("acct_grant")}` },
      });
      assert.equal(tx.statusCode, 200);
      const page = tx.json();
      assert.equal(page.total, 2);
      assert.equal(page.transactions[0].type, "grant");
      assert.equal(page.transactions[0].amount, 1.5);
      assert.equal(page.hasMore, true);
      assert.equal(page.nextOffset, 1);
      const all = await h.app.inject({
        method: "GET",
        url: "/v1/credits/transactions",
        headers: { authorization: `Bearer ${await h.token("acct_grant")}` },
      });
      assert.deepEqual(
        [all.json().limit, all.json().offset, all.json().hasMore, all.json().nextOffset],
        [50, 0, false, null],
      );
    });
  });
}
