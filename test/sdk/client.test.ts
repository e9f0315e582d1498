// The SDK against a live service: the real app listening on a loopback port, checks answered by
// the local fake internet (DNS, SMTP, HTTPS), webhook deliveries to a loopback receiver.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type Batch,
  LeadcheckClient,
  type ValidationJob,
  verifyWebhookSignature,
} from "../../sdk/src/index.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { type Harness, startHarness } from "../support/harness.js";
import { freePort } from "../support/process.js";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server.js";
import { startReceiver } from "../webhooks/receiver.js";
import { failure, NO_LIMITS } from "./sdk-support.js";

describe("SDK against a live service", () => {
  let net: FakeInternet;
  let slowMx: TestSmtpServer;
  let h: Harness;
  let baseUrl = "";
  let client: LeadcheckClient;

  before(async () => {
    // slow.test answers each SMTP line 1.1 s after the last: the check outlives a 5 s wait (a job).
    net = await startFakeInternet({
      "slow.test": { MX: [{ exchange: "mx.slow.test", priority: 10 }] },
      "mx.slow.test": { A: ["127.0.0.5"] },
    });
    slowMx = await startSmtpServer(
      { "127.0.0.5": { mailboxes: ["erin@slow.test"], replyDelayMs: 1100, delayModel: "serial" } },
      net.smtp.port,
    );
    h = await startHarness(
      "sqlite",
      { ...net.env, ...NO_LIMITS, SMTP_COMMAND_TIMEOUT_MS: "5000", SMTP_TOTAL_DEADLINE_MS: "30000" },
      { websiteCa: net.ca, workers: true },
    );
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    baseUrl = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
    client = new LeadcheckClient({ baseUrl, apiKey: await h.apiKey("acct_sdk") });
  });
  after(async () => {
    await h?.close();
    await net?.close();
    await slowMx?.close();
  });

  it("creates, lists and revokes API keys with the identity token; a revoked key gets 401", async () => {
    const admin = new LeadcheckClient({ baseUrl, token: await h.token("acct_keys") });
    const created = await admin.keys.create({ name: "ci", description: "from the SDK" });
    assert.match(created.api_key, /^sk_[A-Za-z0-9]{40}$/);
    const listed = await admin.keys.list();
    assert.deepEqual(
      listed.keys.map((k) => k.key_id),
      [created.key_id],
    );
    const viaKey = new LeadcheckClient({ baseUrl, apiKey: created.api_key });
    assert.equal((await viaKey.credits.get()).userId, "acct_keys");
    assert.equal((await admin.keys.revoke(created.key_id)).key_id, created.key_id);

    const revoked = await failure(viaKey.credits.get());
    assert.equal(revoked.status, 401);
    assert.equal(revoked.errorCode, "INVALID_API_KEY");
    assert.ok(revoked.requestId, "the request id is carried for support");
    const noToken = await failure(viaKey.keys.list());
    assert.equal(noToken.status, 0);
    assert.equal(noToken.errorCode, "MISSING_CREDENTIALS");
  });

  it("checks a website and an email and reports the charge", async () => {
    const site = await client.checkWebsite("acme.test");
    assert.equal(site.status, "active", JSON.stringify(site));
    assert.equal(site.valid, true);
    assert.equal(site.sslValid, true);
    assert.equal(site.creditsDeducted, 0.001);

    const email = await client.checkEmail({ email: "alice@acme.test", timeout: 10 });
    assert.equal(email.status, "valid", JSON.stringify(email));
    assert.equal(email.valid, true);
    assert.equal(email.catchAll, false);
    assert.equal(email.creditsRemaining, 1.998);
  });

  it("follows an email check that outlives its wait with waitForJob", async () => {
    const started = await client.checkEmail({ email: "erin@slow.test", timeout: 5 });
    assert.equal(started.status, "processing", JSON.stringify(started));
    assert.ok(started.jobId);
    const seen: ValidationJob[] = [];
    const job = await client.waitForJob(started.jobId, {
      intervalMs: 200,
      timeoutMs: 60_000,
      onProgress: (j) => seen.push(j),
    });
    assert.equal(job.status, "completed", JSON.stringify(job));
    assert.equal(job.result?.valid, true);
    assert.equal(seen.at(-1), job);
  });

  it("creates, reads, lists, updates and archives leads; an archived lead is a 404", async () => {
    const lead = await client.leads.create({ email: "bob@acme.test", firstName: "Bob", validate: false });
    assert.match(lead.id, /^lead_/);
    assert.equal(lead.validationStatus, "new");
    assert.equal((await client.leads.get(lead.id)).email, "bob@acme.test");

    const updated = await client.leads.update(lead.id, { company: "Acme", customFields: { tier: "gold" } });
    assert.equal(updated.company, "Acme");
    const page = await client.leads.list({ validationStatus: "new", limit: 10 });
    assert.ok(page.leads.some((l) => l.id === lead.id));

    await client.leads.archive(lead.id);
    const gone = await failure(client.leads.get(lead.id));
    assert.equal(gone.status, 404);
    assert.equal(gone.errorCode, "NOT_FOUND");
  });

  it("bulk-creates leads and follows their batch to completion with progress", async () => {
    const bulk = await client.leads.bulk([
      { email: "alice@acme.test", website: "acme.test" },
      { email: "anyone@catchall.test" },
      { email: "not an email" },
    ]);
    assert.equal(bulk.created, 2);
    assert.equal(bulk.failed, 1);
    assert.ok(bulk.batchId);
    const seen: Batch[] = [];
    const batch = await client.waitForBatch(bulk.batchId, {
      intervalMs: 100,
      timeoutMs: 30_000,
      onProgress: (b) => seen.push(b),
    });
    assert.equal(batch.status, "completed");
    assert.equal(batch.completedLeads + batch.failedLeads, 2);
    assert.equal(seen.at(-1), batch);
    const results = await client.batches.results(bulk.batchId);
    assert.equal(results.total, 2);
    assert.deepEqual([results.limit, results.offset], [50, 0], "paging defaults on the server");
    const alice = await client.leads.get(bulk.leads[0]!.id);
    assert.equal(alice.validationStatus, "valid");

    const all: string[] = [];
    for await (const l of client.leads.iterate({ limit: 1 })) all.push(l.email);
    assert.ok(all.includes("alice@acme.test") && all.includes("anyone@catchall.test"), all.join());
    const stats = await client.leads.stats();
    assert.ok(stats.total >= 2);
  });

  it("imports CSV and exports the leads back as CSV", async () => {
    const imported = await client.leads.importCsv("email,first_name\ncarol@acme.test,Carol\n", {
      validate: false,
    });
    assert.equal(imported.created, 1);
    assert.equal(imported.batchId, null);
    const csv = await client.leads.exportCsv();
    assert.match(csv, /carol@acme\.test/);
    assert.match(csv.split("\n")[0]!, /email/);
    const filtered = await client.leads.exportCsv({ search: "carol" });
    assert.equal(filtered.trim().split("\n").length, 2, "the header and Carol only");
    assert.equal(
      (await client.leads.exportCsv({ search: "nobody-by-this-name" })).trim().split("\n").length,
      1,
    );
  });

  it("runs a domain batch and pages through its results", async () => {
    const started = await client.batches.createDomainBatch(["acme.test", "parked.test", "nxdomain.test"]);
    const batch = await client.waitForBatch(started.batchId, { intervalMs: 100, timeoutMs: 30_000 });
    assert.equal(batch.status, "completed");
    const page = await client.batches.results(started.batchId, { limit: 2 });
    assert.equal(page.results.length, 2);
    assert.equal(page.hasMore, true);
    assert.match(page.results[0]!.input, /acme\.test/);
  });

  it("surfaces 402 as LeadcheckError PAYMENT_REQUIRED and charges nothing", async () => {
    const poor = new LeadcheckClient({ baseUrl, apiKey: await h.apiKey("acct_poor") });
    const before = await poor.credits.get();
    const domains = Array.from({ length: 2001 }, (_, i) => `site${i}.test`);
    const error = await failure(poor.batches.createDomainBatch(domains));
    assert.equal(error.status, 402);
    assert.equal(error.errorCode, "PAYMENT_REQUIRED");
    assert.equal(error.details.required, 2.001);
    assert.equal(error.details.available, 2);
    assert.equal(error.errorBody?.displayCreditsRequired, 2001);
    assert.equal((await poor.credits.get()).credits, before.credits);
    assert.equal((await poor.credits.transactions()).transactions.length, 1, "only the signup entry");
  });

  it("surfaces 422 field errors in details", async () => {
    const error = await failure(client.checkEmail({ email: "a@acme.test", timeout: 1 }));
    assert.equal(error.status, 422);
    assert.equal(error.errorCode, "VALIDATION_ERROR");
    const fields = (error.details.errors as { field: string }[]).map((e) => e.field);
    assert.deepEqual(fields, ["timeout"]);
  });

  it("manages webhooks; verifyWebhookSignature accepts a real delivery and rejects a tampered body", async () => {
    const receiver = await startReceiver();
    try {
      const created = await client.webhooks.create({
        name: "sdk",
        url: receiver.url("/hook"),
        events: ["lead.created"],
      });
      assert.match(created.secret, /^whsec_/);
      assert.equal((await client.webhooks.list()).total, 1);
      const renamed = await client.webhooks.update(created.webhook_id, { name: "sdk renamed" });
      assert.equal(renamed.name, "sdk renamed");

      const tested = await client.webhooks.test(created.webhook_id, "lead.created");
      assert.equal(tested.success, true, JSON.stringify(tested));
      const delivery = receiver.received.at(-1)!;
      const header = delivery.headers["x-webhook-signature"];
      assert.equal(verifyWebhookSignature(created.secret, delivery.body, header), true);
      assert.equal(verifyWebhookSignature(created.secret, `${delivery.body} `, header), false);
      assert.equal(
        verifyWebhookSignature(created.secret, delivery.body.replace("lead", "LEAD"), header),
        false,
      );

      const rotated = await client.webhooks.rotateSecret(created.webhook_id);
      assert.equal(verifyWebhookSignature(rotated.secret, delivery.body, header), false);
      const deliveries = await client.webhooks.deliveries(created.webhook_id);
      assert.equal(deliveries.total, 1);
      const again = await client.webhooks.redeliver(
        created.webhook_id,
        deliveries.deliveries[0]!.delivery_id,
      );
      assert.notEqual(again.delivery_id, deliveries.deliveries[0]!.delivery_id);

      await client.webhooks.delete(created.webhook_id);
      assert.equal((await failure(client.webhooks.get(created.webhook_id))).status, 404);
    } finally {
      await receiver.close();
    }
  });

  it("reports an unreachable service as NETWORK_ERROR with status 0", async () => {
    const closed = new LeadcheckClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: "sk_x" });
    const error = await failure(closed.health());
    assert.equal(error.status, 0);
    assert.equal(error.errorCode, "NETWORK_ERROR");
    assert.match(error.message, /ECONNREFUSED/);
    assert.equal((await client.health()).status, "healthy");
  });
});
