import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type FakeStripe, type SignedEvent, startFakeStripe } from "../support/fake-stripe.js";
import { type Harness, startHarness } from "../support/harness.js";

const SECRET_KEY = "sk_test_leadcheck_fake";
const WEBHOOK_SECRET = "whsec_test_leadcheck_fake";

for (const kind of dialects()) {
  describe(`buying credits with Stripe (${kind})`, async () => {
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
        PUBLIC_URL: "https://app.example.test",
      });
    });
    after(async () => {
      await h?.close();
      await stripe?.close();
    });

    async function checkout(accountId: string, amount: number) {
      return h.app.inject({
        method: "POST",
        url: "/v1/payments/checkout",
        headers: { authorization: `Bearer ${await h.token(accountId)}` },
        payload: { amount },
      });
    }

    function deliver(event: SignedEvent, signature = event.signature) {
      return h.app.inject({
        method: "POST",
        url: "/v1/payments/stripe/webhook",
        headers: { "content-type": "application/json", "stripe-signature": signature },
        payload: event.payload,
      });
    }

    async function balance(accountId: string) {
      return h.services.credits.balance(accountId);
    }

    it("creates a Checkout Session for the amount with the library: 5 EUR = 500 cents = 5,000 credits", {
      skip,
    }, async () => {
      const res = await checkout("acct_buy", 5);
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      const session = stripe.sessions.get(body.id);
      assert.ok(session, "the fake Stripe received the session");
      assert.equal(session.amountMinor, 500);
      assert.equal(session.currency, "eur");
      assert.equal(session.clientReferenceId, "acct_buy");
      assert.equal(session.metadata.leadcheck_milli_credits, "5000");
      assert.equal(
        session.successUrl,
        "https://app.example.test/dashboard/credits?checkout=success&session_id={CHECKOUT_SESSION_ID}",
      );
      assert.deepEqual(
        {
          url: body.url,
          amount: body.amount,
          currency: body.currency,
          credits: body.credits,
          displayCredits: body.displayCredits,
        },
        { url: `${stripe.url}/pay/${body.id}`, amount: 5, currency: "eur", credits: 5, displayCredits: 5000 },
      );
    });

    it("refuses an amount under the configured minimum with a 422 naming the field", { skip }, async () => {
      const before = stripe.sessions.size;
      const res = await checkout("acct_buy", 4);
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().error_code, "VALIDATION_ERROR");
      assert.equal(res.json().details.errors[0].field, "amount");
      assert.equal(stripe.sessions.size, before);
    });

    it("answers 503 with the error body when Stripe fails, creating nothing", { skip }, async () => {
      stripe.failNext = 2; // the library retries once
      const res = await checkout("acct_buy", 5);
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error_code, "SERVICE_UNAVAILABLE");
    });

    it("grants the credits once on checkout.session.completed, as a purchase carrying the payment id", {
      skip,
    }, async () => {
      const { id } = (await checkout("acct_paid", 7)).json();
      const start = (await balance("acct_paid")).displayCredits;
      const event = stripe.event(id);
      const res = await deliver(event);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { received: true, result: "granted" });
      const after = await balance("acct_paid");
      assert.equal(after.displayCredits, start + 7000);
      assert.equal(after.lastPurchase?.credits, 7);
      const ledger = await h.services.credits.transactions("acct_paid", 10, 0);
      const purchase = ledger.entries.find((e) => e.kind === "purchase");
      assert.ok(purchase);
      assert.equal(purchase.deltaMilli, 7000);
      assert.equal(purchase.reference, stripe.sessions.get(id)?.paymentIntent);
      assert.equal(purchase.reason, "Purchase: 7.00 EUR");
      assert.equal(await h.services.credits.ledgerSum("acct_paid"), after.displayCredits);
    });

    it("grants nothing for a replayed event (same id)", { skip }, async () => {
      const { id } = (await checkout("acct_replay", 5)).json();
      const event = stripe.event(id);
      assert.equal((await deliver(event)).json().result, "granted");
      const granted = (await balance("acct_replay")).displayCredits;
      for (let i = 0; i < 3; i++) {
        const res = await deliver(event);
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().result, "duplicate_event");
      }
      assert.equal((await balance("acct_replay")).displayCredits, granted);
    });

    it("grants a session once when it is paid by two different events, even delivered at once", {
      skip,
    }, async () => {
      const { id } = (await checkout("acct_twice", 5)).json();
      const start = (await balance("acct_twice")).displayCredits;
      const first = stripe.event(id);
      const second = stripe.event(id, { type: "checkout.session.async_payment_succeeded" });
      const third = stripe.event(id);
      const results = await Promise.all([deliver(first), deliver(second), deliver(third)]);
      assert.deepEqual(results.map((r) => r.json().result).sort(), [
        "already_granted",
        "already_granted",
        "granted",
      ]);
      assert.equal((await balance("acct_twice")).displayCredits, start + 5000);
      const rows = await h.services.database.db
        .selectFrom("payments")
        .selectAll()
        .where("account_id", "=", "acct_twice")
        .execute();
      assert.equal(rows.length, 1);
    });

    it("refuses a bad signature with 400 and grants nothing", { skip }, async () => {
      const { id } = (await checkout("acct_forged", 5)).json();
      const start = (await balance("acct_forged")).displayCredits;
      const forged = stripe.event(id, { secret: "whsec_someone_else" });
      const res = await deliver(forged);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error_code, "BAD_REQUEST");
      assert.match(res.json().message, /signature/i);
      const tampered = stripe.event(id);
      const altered = { ...tampered, payload: tampered.payload.replace('"5000"', '"5000000"') };
      assert.equal((await deliver(altered)).statusCode, 400);
      const unsigned = await h.app.inject({
        method: "POST",
        url: "/v1/payments/stripe/webhook",
        headers: { "content-type": "application/json" },
        payload: tampered.payload,
      });
      assert.equal(unsigned.statusCode, 400);
      assert.equal((await balance("acct_forged")).displayCredits, start);
      // The genuine event still works afterwards: refused deliveries were not recorded.
      assert.equal((await deliver(tampered)).json().result, "granted");
    });

    it("waits for an async payment: completed unpaid grants nothing, async_payment_succeeded grants", {
      skip,
    }, async () => {
      const { id } = (await checkout("acct_async", 6)).json();
      const start = (await balance("acct_async")).displayCredits;
      const pending = await deliver(stripe.event(id, { paymentStatus: "unpaid" }));
      assert.equal(pending.json().result, "awaiting_payment");
      assert.equal((await balance("acct_async")).displayCredits, start);
      const paid = await deliver(stripe.event(id, { type: "checkout.session.async_payment_succeeded" }));
      assert.equal(paid.json().result, "granted");
      assert.equal((await balance("acct_async")).displayCredits, start + 6000);
    });

    it("acknowledges event types it does not act on", { skip }, async () => {
      const { id } = (await checkout("acct_other", 5)).json();
      const res = await deliver(stripe.event(id, { type: "checkout.session.expired" }));
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().result, "ignored");
    });

    it("reports the purchase settings", { skip }, async () => {
      const res = await h.app.inject({
        method: "GET",
        url: "/v1/payments/settings",
        headers: { authorization: `Bearer ${await h.token("acct_settings")}` },
      });
      assert.deepEqual(res.json(), {
        enabled: true,
        provider: "stripe",
        currency: "eur",
        minimumAmount: 5,
        maximumAmount: 10000,
        displayCreditsPerUnit: 1000,
      });
    });
  });
}

describe("buying credits without Stripe keys", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness("sqlite");
  });
  after(async () => h?.close());

  it("says buying is off, and checkout and the webhook answer 404 explaining how credits are granted", async () => {
    const auth = { authorization: `Bearer ${await h.token("acct_nokeys")}` };
    const settings = await h.app.inject({ method: "GET", url: "/v1/payments/settings", headers: auth });
    assert.equal(settings.json().enabled, false);
    assert.equal(settings.json().provider, null);
    const res = await h.app.inject({
      method: "POST",
      url: "/v1/payments/checkout",
      headers: auth,
      payload: { amount: 5 },
    });
    assert.equal(res.statusCode, 404);
    assert.match(res.json().message, /leadcheck credits grant/);
    const hook = await h.app.inject({
      method: "POST",
      url: "/v1/payments/stripe/webhook",
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=00" },
      payload: "{}",
    });
    assert.equal(hook.statusCode, 404);
    assert.equal(hook.json().error_code, "NOT_FOUND");
  });
});
