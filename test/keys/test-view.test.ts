// The dashboard's test view (ADR 0054) through the real service on both dialects: a member who
// sends `X-Account-Id: <account>~test` acts on the account's test data space with their own role
// (what a test-mode key sees, and nothing of the live data), key and team management stay on the
// live account, live-only routes are refused, and a person who is not a member gets the same 404
// as for the live account.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

const ACCT = "acct_testview";
const TEST_SPACE = `${ACCT}~test`;

for (const kind of dialects()) {
  describe(`the test view of an account (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let fake: FakeInternet;
    let owner: Record<string, string>;
    let testView: Record<string, string>;

    before(async () => {
      if (skip) return;
      fake = await startFakeInternet();
      h = await startHarness(kind, { ...fake.env, ...UNLIMITED_RATE_ENV }, { workers: true });
      owner = { authorization: `Bearer ${await h.token(ACCT)}` };
      testView = { ...owner, "x-account-id": TEST_SPACE };
    });
    after(async () => {
      await h?.close();
      await fake?.close();
    });

    const call = (method: "GET" | "POST", url: string, headers: Record<string, string>, payload?: object) =>
      h.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

    it("acts on the test data space with the member's role", { skip }, async () => {
      const me = (await call("GET", "/v1/me", testView)).json();
      assert.equal(me.accountId, TEST_SPACE);
      assert.equal(me.role, "owner");

      const created = await call("POST", "/v1/leads", testView, { email: "valid@testview.example" });
      assert.equal(created.statusCode, 201, created.body);
      const liveLeads = (await call("GET", "/v1/leads", owner)).json();
      assert.equal(liveLeads.leads.length, 0, "live data never shows test data");
      const testLeads = (await call("GET", "/v1/leads", testView)).json();
      assert.deepEqual(
        testLeads.leads.map((lead: { email: string }) => lead.email),
        ["valid@testview.example"],
      );
      // What a test-mode key of the account sees is the same space.
      const key = await call("POST", "/v1/auth/keys", owner, { name: "test", mode: "test" });
      const keyLeads = (await call("GET", "/v1/leads", { "x-api-key": key.json().api_key })).json();
      assert.equal(keyLeads.leads.length, 1);
    });

    it("runs checks as test mode does: never charged, never on the network", { skip }, async () => {
      const smtpBefore = fake.smtp.totalConnections();
      const balance = (await call("GET", "/v1/credits", owner)).json().credits;
      const res = await call("POST", "/v1/check-email", testView, { email: "invalid@testview.example" });
      assert.equal(res.statusCode, 200, res.body);
      // The scripted test-mode verdict, within the request (before, without a worker, the request
      // waited out its 30 s and answered "processing", which said nothing of the verdict).
      assert.equal(res.json().status, "invalid", res.body);
      assert.equal(res.json().reason, "mailbox_not_found");
      assert.match(res.json().details.message, /test mode/);
      assert.equal(res.json().livemode, false);
      assert.equal(res.json().creditsDeducted, 0);
      assert.equal(fake.smtp.totalConnections(), smtpBefore);
      assert.equal((await call("GET", "/v1/credits", owner)).json().credits, balance);
    });

    it("keeps keys on the live account and refuses live-only routes", { skip }, async () => {
      const made = await call("POST", "/v1/auth/keys", testView, { name: "made in the test view" });
      assert.equal(made.statusCode, 201, made.body);
      const listed = (await call("GET", "/v1/auth/keys", owner)).json();
      assert.ok(listed.keys.some((key: { key_id: string }) => key.key_id === made.json().key_id));
      const connection = await call("POST", "/v1/connections", testView, {
        provider: "hubspot",
        name: "crm",
        credentials: { accessToken: "pat-na1-00000000-0000-0000-0000-000000000000" },
      });
      assert.equal(connection.statusCode, 403, connection.body);
      assert.equal(connection.json().details.reason, "live_only");
      const checkout = await call("POST", "/v1/payments/checkout", testView, { amount: 5 });
      assert.equal(checkout.statusCode, 403, checkout.body);
      assert.equal(checkout.json().details.reason, "live_only");
      const testKey = (await call("POST", "/v1/auth/keys", owner, { name: "t", mode: "test" })).json()
        .api_key;
      const keyCheckout = await call(
        "POST",
        "/v1/payments/checkout",
        { "x-api-key": testKey },
        { amount: 5 },
      );
      assert.equal(keyCheckout.statusCode, 403, keyCheckout.body);
      assert.equal(keyCheckout.json().details.reason, "live_only");
    });

    it("is the same 404 as the live account for a person who is not a member", { skip }, async () => {
      const stranger = { authorization: `Bearer ${await h.token("acct_stranger")}` };
      for (const space of [ACCT, TEST_SPACE]) {
        const res = await call("GET", "/v1/leads", { ...stranger, "x-account-id": space });
        assert.equal(res.statusCode, 404, space);
      }
    });
  });
}
