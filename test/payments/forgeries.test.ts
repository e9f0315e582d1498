// Payments fulfil only what we sold: a signed event names a session, and leadcheck grants what it
// recorded for that session once Stripe (the fake, through the official library) confirms it is
// paid for that amount and currency. Each forgery of issue 27 is played against the fake.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type FakeStripe, type SignedEvent, startFakeStripe } from "../support/fake-stripe.js";
import { type Harness, startHarness } from "../support/harness.js";

const SECRET_KEY = "sk_test_leadcheck_fake";
const WEBHOOK_SECRET = "whsec_test_leadcheck_fake";

for (const kind of dialects()) {
  describe(`Stripe webhook forgeries (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let stripe: FakeStripe;
    before(async () => {
      if (skip) return;
      stripe = await startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
      h = await startHarness(kind, {
        STRIPE_SECRET_KEY: SECRET_KEY,
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_URL: stripe.url,
        PAYMENT_CURRENCY: "eur",
        PAYMENT_MIN_AMOUNT: "5",
      });
    });
    after(async () => {
      await h?.close();
      await stripe?.close();
    });

    async function checkout(accountId: string, amount: number): Promise<string> {
      const res = await h.app.inject({
        method: "POST",
        url: "/v1/payments/checkout",
        headers: { authorization: `Bearer ${await h.token(accountId)}` },
        payload: { amount },
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().id;
    }

    async function deliver(event: SignedEvent) {
      const res = await h.app.inject({
        method: "POST",
        url: "/v1/payments/stripe/webhook",
        headers: { "content-type": "application/json", "stripe-signature": event.signature },
        payload: event.payload,
      });
      return { status: res.statusCode, result: res.json().result as string };
    }

    const balance = async (accountId: string) => (await h.services.credits.balance(accountId)).displayCredits;

    it("records every checkout session it creates: account, amount, currency and credits", {
      skip,
    }, async () => {
      const id = await checkout("acct_record", 7);
      const row = await h.services.database.db
        .selectFrom("checkout_sessions")
        .selectAll()
        .where("session_id", "=", id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [row.provider, row.account_id, Number(row.amount_minor), row.currency, Number(row.milli_credits)],
        ["stripe", "acct_record", 700, "eur", 7000],
      );
    });

    it("grants nothing for a paid session leadcheck never created, whichever account it names", {
      skip,
    }, async () => {
      const victim = "acct_named_by_stranger";
      await h.token(victim);
      const start = await balance(victim);
      const foreign = stripe.createSession({
        amountMinor: 500,
        currency: "eur",
        clientReferenceId: victim,
        metadata: { leadcheck_account_id: victim, leadcheck_milli_credits: "5000" },
      });
      const res = await deliver(stripe.event(foreign.id));
      assert.deepEqual(res, { status: 200, result: "unknown_session" }, "answered 2xx so Stripe stops");
      // A session Stripe never had either.
      const invented = stripe.signedEvent("checkout.session.completed", {
        id: "cs_test_invented",
        object: "checkout.session",
        payment_status: "paid",
        amount_total: 500,
        currency: "eur",
        client_reference_id: victim,
        metadata: { leadcheck_account_id: victim, leadcheck_milli_credits: "5000" },
      });
      assert.deepEqual(await deliver(invented), { status: 200, result: "unknown_session" });
      assert.equal(await balance(victim), start);
      const rows = await h.services.database.db
        .selectFrom("payments")
        .selectAll()
        .where("account_id", "=", victim)
        .execute();
      assert.equal(rows.length, 0);
    });

    it("ignores metadata re-pointed to another account; the real payer gets the credits once", {
      skip,
    }, async () => {
      const payer = "acct_real_payer";
      const thief = "acct_thief";
      await h.token(thief);
      const id = await checkout(payer, 5);
      const [payerStart, thiefStart] = [await balance(payer), await balance(thief)];
      const repoint = (o: Record<string, unknown>) => ({
        ...o,
        client_reference_id: thief,
        metadata: { leadcheck_account_id: thief, leadcheck_milli_credits: "5000" },
      });
      // Before the buyer has paid: the forged "completed" event finds the session unpaid at Stripe.
      const early = await deliver(stripe.event(id, { edit: repoint }));
      assert.deepEqual(early, { status: 200, result: "awaiting_payment" });
      assert.equal(await balance(thief), thiefStart);
      // The genuine event is not answered "already granted": the payer gets what they bought.
      assert.deepEqual(await deliver(stripe.event(id)), { status: 200, result: "granted" });
      assert.equal(await balance(payer), payerStart + 5000);
      // After payment, a second forgery grants nothing more to anyone.
      assert.deepEqual(await deliver(stripe.event(id, { edit: repoint })), {
        status: 200,
        result: "already_granted",
      });
      assert.equal(await balance(thief), thiefStart);
      assert.equal(await balance(payer), payerStart + 5000);
    });

    it("grants what was sold, not 1,000 times the credits the metadata claims for a 500-cent payment", {
      skip,
    }, async () => {
      const buyer = "acct_greedy";
      const id = await checkout(buyer, 5);
      const start = await balance(buyer);
      // Someone with write access to the Stripe account edits the session's metadata there, too.
      stripe.sessions.get(id)!.metadata.leadcheck_milli_credits = "5000000";
      const inflate = (o: Record<string, unknown>) => ({
        ...o,
        metadata: { leadcheck_account_id: buyer, leadcheck_milli_credits: "5000000" },
      });
      assert.deepEqual(await deliver(stripe.event(id, { edit: inflate })), {
        status: 200,
        result: "awaiting_payment",
      });
      assert.deepEqual(await deliver(stripe.event(id)), { status: 200, result: "granted" });
      assert.equal(
        await balance(buyer),
        start + 5000,
        "500 cents buy 5,000 display credits, whatever the metadata says",
      );
      const ledger = await h.services.credits.transactions(buyer, 10, 0);
      assert.deepEqual(
        ledger.entries.filter((e) => e.kind === "purchase").map((e) => e.deltaMilli),
        [5000],
      );
    });

    it("refuses a session whose amount or currency at Stripe differs from what was sold", {
      skip,
    }, async () => {
      const buyer = "acct_cheap";
      const id = await checkout(buyer, 50);
      const start = await balance(buyer);
      const session = stripe.sessions.get(id)!;
      session.amountMinor = 50; // 0.50 EUR charged for 50 EUR of credits
      assert.deepEqual(await deliver(stripe.event(id)), { status: 200, result: "refused" });
      session.amountMinor = 5000;
      session.currency = "jpy";
      assert.deepEqual(await deliver(stripe.event(id)), { status: 200, result: "refused" });
      assert.equal(await balance(buyer), start);
      // Refused events are not recorded: once Stripe agrees with the record, a delivery grants.
      session.currency = "eur";
      assert.deepEqual(await deliver(stripe.event(id)), { status: 200, result: "granted" });
      assert.equal(await balance(buyer), start + 50_000);
    });

    it("asks Stripe, not the event, whether the session is paid", { skip }, async () => {
      const buyer = "acct_unpaid";
      const id = await checkout(buyer, 5);
      const start = await balance(buyer);
      const claimPaid = (o: Record<string, unknown>) => ({ ...o, payment_status: "paid" });
      stripe.event(id, { paymentStatus: "unpaid" }); // Stripe completes the session, unpaid
      const before = stripe.retrievals.length;
      assert.deepEqual(
        await deliver(
          stripe.event(id, {
            type: "checkout.session.async_payment_succeeded",
            edit: claimPaid,
            paymentStatus: "unpaid",
          }),
        ),
        {
          status: 200,
          result: "awaiting_payment",
        },
      );
      assert.deepEqual(stripe.retrievals.slice(before), [id], "the library retrieved the session once");
      assert.equal(await balance(buyer), start);
    });

    it("refuses an event for a recorded session Stripe does not know", { skip }, async () => {
      const buyer = "acct_gone";
      const id = await checkout(buyer, 5);
      const start = await balance(buyer);
      const event = stripe.event(id);
      const original = stripe.sessions.get(id)!;
      stripe.sessions.delete(id); // e.g. created with another Stripe account's keys
      assert.deepEqual(await deliver(event), { status: 200, result: "refused" });
      assert.equal(await balance(buyer), start);
      stripe.sessions.set(id, original);
    });

    it("answers 503 when Stripe cannot be asked, then grants once on redelivery", { skip }, async () => {
      const buyer = "acct_retry";
      const id = await checkout(buyer, 5);
      const start = await balance(buyer);
      const event = stripe.event(id);
      stripe.failNext = 2; // the library retries once
      assert.equal((await deliver(event)).status, 503, "a 5xx makes Stripe redeliver");
      assert.equal(await balance(buyer), start);
      assert.deepEqual(await deliver(event), { status: 200, result: "granted" });
      // Idempotent re-delivery: the same event, and a new event for the same session.
      assert.deepEqual(await deliver(event), { status: 200, result: "duplicate_event" });
      assert.deepEqual(await deliver(stripe.event(id)), { status: 200, result: "already_granted" });
      assert.equal(await balance(buyer), start + 5000);
    });
  });
}
