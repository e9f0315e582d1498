// The check endpoints through the API: credits upfront, results from the engines against the
// local fake internet, the email job lifecycle with greylisting retried in the background.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { after, before, describe, it } from "node:test";
import { type FakeInternet, startFakeInternet } from "../../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../../support/harness.js";
import { waitFor } from "../../support/wait-for.js";

describe("check endpoints", () => {
  let net: FakeInternet;
  let h: Harness;
  let key = "";
  const post = (url: string, payload: object) =>
    h.app.inject({ method: "POST", url, headers: { "x-api-key": key }, payload });
  const get = (url: string) => h.app.inject({ method: "GET", url, headers: { "x-api-key": key } });

  before(async () => {
    net = await startFakeInternet();
    h = await startHarness(
      "sqlite",
      { ...net.env, ...UNLIMITED_RATE_ENV },
      { websiteCa: net.ca, workers: true },
    );
    key = await h.apiKey("acct_checks");
  });
  after(async () => {
    await h?.close();
    await net?.close();
  });

  it("checks a website, charges 0.001 and reports what it found", async () => {
    const res = await post("/v1/check-website", { website: "acme.test" });
    assert.equal(res.statusCode, 200);
    const r = res.json();
    assert.equal(r.status, "active");
    assert.equal(r.valid, true);
    assert.equal(r.httpStatus, 200);
    assert.equal(r.sslValid, true);
    assert.equal(r.isParked, false);
    assert.equal(r.creditsDeducted, 0.001);
    assert.equal(r.creditsRemaining, 1.999);
    assert.ok(r.details.timings);
  });

  it("gives the short form without details, and /v1/check takes a domain", async () => {
    const short = (await post("/v1/check-website", { website: "parked.test", returnDetails: false })).json();
    assert.equal(short.isParked, true);
    assert.equal(short.details, undefined);
    const byDomain = (await post("/v1/check", { domain: "broken.test" })).json();
    assert.equal(byDomain.status, "inactive");
    assert.equal(byDomain.creditsDeducted, 0.001);
  });

  it("answers an unresolvable site with status error and still reports the credits", async () => {
    const r = (await post("/v1/check-website", { website: "nowhere.test" })).json();
    assert.equal(r.status, "error");
    assert.equal(r.valid, false);
    assert.ok(r.error);
    assert.equal(typeof r.creditsRemaining, "number");
  });

  it("refuses garbage with 422 before charging", async () => {
    const before = (await get("/v1/credits")).json().displayCredits;
    const res = await post("/v1/check-website", { website: "not a url at all" });
    assert.equal(res.statusCode, 422);
    assert.equal((await get("/v1/credits")).json().displayCredits, before);
    assert.equal((await post("/v1/check-email", { email: "nope" })).statusCode, 422);
    assert.equal((await post("/v1/check-email", { email: "a@acme.test", timeout: 2 })).statusCode, 422);
    assert.equal((await get("/v1/credits")).json().displayCredits, before);
  });

  it("verifies a deliverable mailbox synchronously", async () => {
    const res = await post("/v1/check-email", { email: "alice@acme.test", timeout: 10 });
    assert.equal(res.statusCode, 200);
    const r = res.json();
    assert.equal(r.status, "valid");
    assert.equal(r.valid, true);
    assert.equal(r.reason, "deliverable");
    assert.equal(r.catchAll, false);
    assert.equal(r.emailType, "corporate");
    assert.match(r.waitTime, /^\d+(\.\d)?s$/);
    assert.equal(r.creditsDeducted, 0.001);
    assert.equal(net.smtp.sawData(), false, "no mail is ever sent");
  });

  it("reports catch-all domains as risky and unknown mailboxes as invalid", async () => {
    const catchAll = (await post("/v1/check-email", { email: "anyone@catchall.test", timeout: 10 })).json();
    assert.equal(catchAll.catchAll, true);
    assert.equal(catchAll.status, "risky");
    assert.equal(catchAll.reason, "accept_all");
    const unknown = (await post("/v1/check-email", { email: "ghost@acme.test", timeout: 10 })).json();
    assert.equal(unknown.status, "invalid");
    assert.equal(unknown.valid, false);
    assert.equal(unknown.reason, "mailbox_not_found");
  });

  it("hands back a job for a greylisted address and settles it in the background", async () => {
    const res = await post("/v1/check-email", { email: "dave@grey.test", timeout: 5 });
    assert.equal(res.statusCode, 200);
    const r = res.json();
    if (r.status === "processing") {
      assert.match(r.jobId, /^job_/);
      assert.equal(r.pollUrl, `/v1/validation-jobs/${r.jobId}`);
      assert.ok(r.estimatedCompletion && r.message);
      const job = await waitFor(
        async () => {
          const j = (await get(r.pollUrl)).json();
          return j.status === "processing" ? undefined : j;
        },
        "greylisted job completes",
        60_000,
        200,
      );
      assert.equal(job.status, "completed");
      assert.equal(job.result.valid, true);
      assert.equal(job.result.catch_all, false);
      assert.equal(job.type, "email");
      assert.ok(job.elapsedTime.endsWith("s"));
    } else {
      assert.equal(r.status, "valid", "a greylist retry that fits in the wait answers synchronously");
    }
    const other = await h.apiKey("acct_other_checks");
    const jobs = await h.services.database.db.selectFrom("validation_jobs").select("id").execute();
    const foreign = await h.app.inject({
      method: "GET",
      url: `/v1/validation-jobs/${jobs[0]!.id}`,
      headers: { "x-api-key": other },
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal((await get("/v1/validation-jobs/job_missing")).statusCode, 404);
  });

  it("sends one unsigned ad-hoc callback to webhookUrl for an email check and a lead validation", async () => {
    const received: { headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
    const receiver = createServer((req, res) => {
      let data = "";
      req.on("data", (c) => {
        data += c;
      });
      req.on("end", () => {
        received.push({ headers: req.headers, body: JSON.parse(data) });
        res.end("ok");
      });
    });
    receiver.listen(0, "127.0.0.1");
    await once(receiver, "listening");
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    try {
      const check = (
        await post("/v1/check-email", { email: "bob@acme.test", timeout: 10, webhookUrl: url })
      ).json();
      assert.equal(check.status, "valid");
      await waitFor(async () => (received.length >= 1 ? true : undefined), "email callback", 10_000, 50);
      const [first] = received;
      assert.equal(first!.body.event, "validation.complete");
      assert.equal(first!.body.email, "bob@acme.test");
      assert.equal((first!.body.result as { valid: boolean }).valid, true);
      assert.equal(first!.headers["x-webhook-signature"], undefined, "ad-hoc callbacks are unsigned");

      const lead = (await post("/v1/leads", { email: "carol@acme.test", validate: false })).json();
      const started = await post("/v1/leads/validate", { leadIds: [lead.id], webhookUrl: url });
      assert.equal(started.statusCode, 200);
      await waitFor(async () => (received.length >= 2 ? true : undefined), "batch callback", 20_000, 50);
      assert.equal(received[1]!.body.event, "validation.complete");
      assert.equal(received[1]!.body.batchId, started.json().batchId);
      assert.equal(received[1]!.body.totalLeads, 1);
      assert.equal(received.length, 2, "sent once each");

      const refused = await post("/v1/check-email", {
        email: "bob@acme.test",
        webhookUrl: "ftp://example.test/x",
      });
      assert.equal(refused.statusCode, 422);
    } finally {
      receiver.close();
    }
  });
});
