// Test-mode secret keys (issue 24, ADR 0051) through the real service on both dialects: a data
// space of their own that live keys never see (and the other way round), scripted verdicts from
// the magic inputs with the live verdicts' shape, no charge, webhooks with livemode false, and not
// one DNS query, SMTP connection or HTTP request to the fake internet for any of it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { waitFor } from "../support/wait-for.js";
import { type Receiver, startReceiver } from "../webhooks/receiver.js";

const ACCT = "acct_testmode";

for (const kind of dialects()) {
  describe(`test-mode keys (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let fake: FakeInternet;
    let receiver: Receiver;
    let live: string;
    let test: string;
    /** Traffic the fake internet saw before the test-mode work: canaries and the egress self-check. */
    let baseline: { dns: number; smtp: number; http: number };
    const traffic = () => ({
      dns: fake.dns.queries.filter((q) => /example|testmode/.test(q)).length,
      smtp: fake.smtp.totalConnections(),
      http: fake.sites.requests.length,
    });

    before(async () => {
      if (skip) return;
      fake = await startFakeInternet();
      receiver = await startReceiver();
      h = await startHarness(
        kind,
        { ...fake.env, ...UNLIMITED_RATE_ENV, WEBHOOK_DISPATCH_INTERVAL_MS: "100" },
        { workers: true, websiteCa: fake.ca },
      );
      const auth = { authorization: `Bearer ${await h.token(ACCT)}` };
      const make = async (mode: "live" | "test") => {
        const res = await h.app.inject({
          method: "POST",
          url: "/v1/auth/keys",
          headers: auth,
          payload: { name: mode, mode },
        });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.json().mode, mode);
        assert.match(res.json().api_key, /^sk_[A-Za-z0-9]{40}$/);
        return res.json().api_key as string;
      };
      live = await make("live");
      test = await make("test");
      baseline = traffic();
    });
    after(async () => {
      await h?.close();
      await receiver?.close();
      await fake?.close();
    });

    it("keeps leads, batches and webhooks of test keys and live keys apart, both ways", {
      skip,
    }, async () => {
      const liveLead = await h.call(live, "POST", "/v1/leads", { email: "live@acme.test", validate: false });
      const testLead = await h.call(test, "POST", "/v1/leads", {
        email: "valid@testmode.example",
        validate: false,
      });
      assert.equal(liveLead.statusCode, 201, liveLead.body);
      assert.equal(testLead.statusCode, 201, testLead.body);
      // The same address may exist once in each space.
      const twin = await h.call(test, "POST", "/v1/leads", { email: "live@acme.test", validate: false });
      assert.equal(twin.statusCode, 201, twin.body);

      const emailsOf = async (key: string) =>
        (await h.call(key, "GET", "/v1/leads"))
          .json()
          .leads.map((l: { email: string }) => l.email)
          .sort();
      assert.deepEqual(await emailsOf(live), ["live@acme.test"]);
      assert.deepEqual(await emailsOf(test), ["live@acme.test", "valid@testmode.example"]);
      assert.equal((await h.call(live, "GET", `/v1/leads/${testLead.json().id}`)).statusCode, 404);
      assert.equal((await h.call(test, "GET", `/v1/leads/${liveLead.json().id}`)).statusCode, 404);

      const hook = await h.call(test, "POST", "/v1/webhooks", {
        name: "test hook",
        url: receiver.url("/test-hook"),
        events: ["lead.created"],
      });
      assert.equal(hook.statusCode, 201, hook.body);
      assert.equal((await h.call(live, "GET", "/v1/webhooks")).json().webhooks.length, 0);
      assert.equal((await h.call(test, "GET", "/v1/webhooks")).json().webhooks.length, 1);
      assert.equal(
        (await h.call(live, "DELETE", `/v1/webhooks/${hook.json().webhook_id ?? hook.json().id}`)).statusCode,
        404,
      );

      const batch = await h.call(test, "POST", "/v1/batch", { domains: ["parked.example"] });
      assert.equal(batch.statusCode, 200, batch.body);
      const batchId = batch.json().batchId as string;
      assert.equal((await h.call(live, "GET", `/v1/batches/${batchId}`)).statusCode, 404);
      assert.equal((await h.call(live, "GET", "/v1/batches")).json().batches.length, 0);
      assert.equal((await h.call(test, "GET", `/v1/batches/${batchId}`)).statusCode, 200);
    });

    it("answers email checks from the magic inputs, shaped like live verdicts, uncharged", {
      skip,
    }, async () => {
      const before = (await h.call(live, "GET", "/v1/credits")).json().credits;
      const expected: [string, string, string][] = [
        ["valid@testmode.example", "valid", "deliverable"],
        ["invalid@testmode.example", "invalid", "mailbox_not_found"],
        ["catchall@testmode.example", "risky", "accept_all"],
        ["full@testmode.example", "risky", "mailbox_full"],
        ["unknown@testmode.example", "unknown", "smtp_unknown_reply"],
        ["valid@mailinator.com", "risky", "disposable"],
        ["anyone@nxdomain.example", "invalid", "dns_nxdomain"],
        ["someone@testmode.example", "unknown", "not_scripted"],
      ];
      for (const [email, status, reason] of expected) {
        const res = await h.call(test, "POST", "/v1/check-email", { email, timeout: 10 });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.status, status, email);
        assert.equal(body.reason, reason, email);
        assert.equal(body.livemode, false);
        assert.equal(body.creditsDeducted, 0);
        assert.match(body.details.message, /test mode/);
        for (const field of [
          "valid",
          "catchAll",
          "disposable",
          "service",
          "emailType",
          "emailRisk",
          "emailScore",
        ])
          assert.ok(field in body, `${email}: ${field}`);
      }
      const typo = (await h.call(test, "POST", "/v1/check-email", { email: "valid@gmial.com" })).json();
      assert.equal(typo.didYouMean, "valid@gmail.com");
      // Neither the live balance nor the test space's moved.
      assert.equal((await h.call(live, "GET", "/v1/credits")).json().credits, before);
      const testCredits = (await h.call(test, "GET", "/v1/credits")).json();
      assert.equal(testCredits.credits, 2);
      assert.equal(testCredits.userId, ACCT);
      const ledger = (await h.call(test, "GET", "/v1/credits/transactions")).json();
      const rows = ledger.transactions ?? ledger.data ?? ledger;
      assert.ok(Array.isArray(rows));
      assert.ok(rows.every((t: { type?: string; kind?: string }) => (t.type ?? t.kind) !== "debit"));
    });

    it("hands `slow@` back as a job that finishes later", { skip }, async () => {
      const res = await h.call(test, "POST", "/v1/check-email", {
        email: "slow@testmode.example",
        timeout: 5,
      });
      assert.equal(res.statusCode, 200, res.body);
      if (res.json().status === "processing") {
        const done = await waitFor(async () => {
          const job = (await h.call(test, "GET", res.json().pollUrl)).json();
          return job.status === "completed" ? job : undefined;
        }, "the slow job");
        assert.equal(done.result.status, "valid");
      } else assert.equal(res.json().status, "valid");
    });

    it("answers website checks from the magic domains", { skip }, async () => {
      const site = async (website: string) => {
        const res = await h.call(test, "POST", "/v1/check-website", { website });
        assert.equal(res.statusCode, 200, res.body);
        return res.json();
      };
      const parked = await site("parked.example");
      assert.equal(parked.isParked, true);
      assert.equal(parked.status, "active");
      assert.equal(parked.livemode, false);
      assert.equal(parked.creditsDeducted, 0);
      const down = await site("www.down.example");
      assert.equal(down.status, "error");
      assert.equal(down.sslValid, null);
      assert.equal(down.isParked, null);
      const expired = await site("expired-tls.example");
      assert.equal(expired.sslValid, false);
      assert.ok(expired.details.certificate.daysToExpiry < 0);
      const anyOther = await site("https://www.testmode-corp.example");
      assert.equal(anyOther.status, "active");
      assert.equal(anyOther.sslValid, true);
      assert.equal(anyOther.isParked, false);
    });

    it("validates test leads (create, bulk validate, domain batch) with scripted verdicts", {
      skip,
    }, async () => {
      const created = await h.call(test, "POST", "/v1/leads", {
        email: "catchall@testmode.example",
        website: "parked.example",
      });
      assert.equal(created.statusCode, 201, created.body);
      const leadId = created.json().id as string;
      const lead = await waitFor(async () => {
        const view = (await h.call(test, "GET", `/v1/leads/${leadId}`)).json();
        return view.validationStatus !== "processing" && view.validatedAt ? view : undefined;
      }, "the test lead's validation");
      assert.equal(lead.emailCatchAll, true);
      assert.equal(lead.domainParked, true);

      const other = await h.call(test, "POST", "/v1/leads", {
        email: "invalid@testmode.example",
        validate: false,
      });
      const validated = await h.call(test, "POST", "/v1/leads/validate", { leadIds: [other.json().id] });
      assert.equal(validated.statusCode, 200, validated.body);
      await waitFor(async () => {
        const b = (await h.call(test, "GET", `/v1/batches/${validated.json().batchId}`)).json();
        return b.status === "completed" ? b : undefined;
      }, "the test batch");
      const invalid = (await h.call(test, "GET", `/v1/leads/${other.json().id}`)).json();
      assert.equal(invalid.emailValid, false);

      const domains = await h.call(test, "POST", "/v1/batch", {
        domains: ["down.example", "acme-corp.example"],
      });
      const results = await waitFor<{ results: unknown[] }>(async () => {
        const b = (await h.call(test, "GET", `/v1/batches/${domains.json().batchId}`)).json();
        if (b.status !== "completed") return undefined;
        return (await h.call(test, "GET", `/v1/batches/${domains.json().batchId}/results`)).json();
      }, "the domain batch");
      assert.equal(results.results.length, 2);
    });

    it("fires the test space's webhooks with livemode false", { skip }, async () => {
      const lead = await h.call(test, "POST", "/v1/leads", {
        email: "hooked@testmode.example",
        validate: false,
      });
      assert.equal(lead.statusCode, 201, lead.body);
      const delivery = await waitFor(
        async () =>
          receiver.received.find((r) => r.path === "/test-hook" && r.json.leadId === lead.json().id),
        "the test webhook",
      );
      assert.equal(delivery.json.livemode, false);
      assert.equal(delivery.json.userId, ACCT);
    });

    it("refuses test keys on the endpoints that reach a third party", { skip }, async () => {
      const res = await h.call(test, "POST", "/v1/connections", {
        kind: "hubspot",
        name: "crm",
        accessToken: "pat-na1-00000000-0000-0000-0000-000000000000",
      });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error_code, "INSUFFICIENT_PERMISSIONS");
      assert.equal(res.json().details.reason, "live_only");
      assert.equal((await h.call(test, "GET", "/v1/connections")).statusCode, 200);
    });

    it("opened no socket to DNS, SMTP or the web for any of the test-mode work", { skip }, async () => {
      assert.deepEqual(traffic(), baseline);
    });

    it("keeps live keys on the live engines (livemode true, charged)", { skip }, async () => {
      const before = (await h.call(live, "GET", "/v1/credits")).json().credits;
      const res = (await h.call(live, "POST", "/v1/check-email", { email: "alice@acme.test" })).json();
      assert.equal(res.livemode, true);
      assert.equal(res.status, "valid");
      assert.ok(fake.smtp.totalConnections() > baseline.smtp);
      const after = (await h.call(live, "GET", "/v1/credits")).json().credits;
      assert.equal(Math.round((before - after) * 1000), 1);
    });
  });
}
