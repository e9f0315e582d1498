// RFC 5321 §4.5.3.2 inside a background job: a greeting that takes 25 s and a first RCPT answered
// after 40 s both end as verdicts, although the interactive per-command timeout here is 2 s, and
// the synchronous wait still answers `processing` on time. The two servers really are that slow,
// so both cases run concurrently (about 45 s in all).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeInternet, startFakeInternet } from "../../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../../support/harness.js";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server.js";
import { waitFor } from "../../support/wait-for.js";

const SLOW_BANNER = "127.0.0.30";
const SLOW_RCPT = "127.0.0.31";

describe("background email jobs wait RFC 5321's times", () => {
  let net: FakeInternet;
  let slow: TestSmtpServer;
  let h: Harness;
  let key = "";
  const post = (url: string, payload: object) =>
    h.app.inject({ method: "POST", url, headers: { "x-api-key": key }, payload });
  const get = (url: string) => h.app.inject({ method: "GET", url, headers: { "x-api-key": key } });

  before(async () => {
    net = await startFakeInternet({
      "slowbanner.test": { MX: [{ exchange: "mx.slowbanner.test", priority: 10 }] },
      "mx.slowbanner.test": { A: [SLOW_BANNER] },
      "slowrcpt.test": { MX: [{ exchange: "mx.slowrcpt.test", priority: 10 }] },
      "mx.slowrcpt.test": { A: [SLOW_RCPT] },
    });
    // The same port as the fake internet's MX hosts (SMTP_PORT), on two more loopback addresses.
    slow = await startSmtpServer(
      {
        [SLOW_BANNER]: { bannerDelayMs: 25_000, mailboxes: ["erin@slowbanner.test"] },
        [SLOW_RCPT]: { firstRcptDelayMs: 40_000, mailboxes: ["fred@slowrcpt.test"] },
      },
      net.smtp.port,
    );
    h = await startHarness(
      "sqlite",
      { ...net.env, ...UNLIMITED_RATE_ENV },
      { websiteCa: net.ca, workers: true },
    );
    key = await h.apiKey("acct_rfc_timeouts");
  });
  after(async () => {
    await h?.close();
    await slow?.close();
    await net?.close();
  });

  const settle = async (email: string) => {
    const res = await post("/v1/check-email", { email, timeout: 5 });
    assert.equal(res.statusCode, 200);
    const answer = res.json();
    assert.equal(answer.status, "processing", "the synchronous wait answers on time");
    return waitFor(
      async () => {
        const j = (await get(answer.pollUrl)).json();
        return j.status === "processing" ? undefined : j;
      },
      `${email} settles`,
      120_000,
      250,
    );
  };

  it("settles a 25 s greeting and a 40 s first RCPT as verdicts, not timeouts", async () => {
    const [banner, rcpt] = await Promise.all([settle("erin@slowbanner.test"), settle("fred@slowrcpt.test")]);
    for (const job of [banner, rcpt]) {
      assert.equal(job.status, "completed");
      assert.equal(job.result.status, "valid", JSON.stringify(job.result));
      assert.equal(job.result.reason, "deliverable");
      assert.equal(job.result.valid, true);
    }
    assert.equal(slow.sawData(), false, "no mail is ever sent");
  });
});
