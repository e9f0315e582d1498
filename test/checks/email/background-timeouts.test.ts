// RFC 5321 §4.5.3.2 inside a background job: a greeting that takes 25 s and a first RCPT answered
// after 40 s both end as verdicts, although the interactive per-command timeout here is 2 s. The
// engine's sessions run on the mocked clock, so those minutes pass by hand and the test shows the
// session still waiting just before each answer. Through the API, a job's session outwaits a
// greeting slower than both the interactive timeout and the synchronous wait (a few real seconds),
// and the synchronous wait still answers `processing` on time.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EmailEngine } from "../../../src/checks/email/email-engine.js";
import { DnsResolver } from "../../../src/net/dns.js";
import { smtpConnector } from "../../../src/net/smtp-client.js";
import { startDnsServer, type TestDnsServer } from "../../support/dns-server.js";
import { type FakeInternet, startFakeInternet } from "../../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../../support/harness.js";
import { ioTurns, mockClock, untilIo } from "../../support/mock-clock.js";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server.js";
import { waitFor } from "../../support/wait-for.js";

const SLOW_BANNER = "127.0.0.30";
const SLOW_RCPT = "127.0.0.31";
/** The interactive per-command timeout: a check answered within the request gives up here. */
const COMMAND_TIMEOUT_MS = 2000;
/** A background job's remaining time, well past the delays below. */
const JOB_BUDGET_MS = 5 * 60_000;

describe("background email sessions wait RFC 5321's times (mocked clock)", () => {
  let dnsServer: TestDnsServer;
  let dns: DnsResolver;
  let smtp: TestSmtpServer;
  let engine: EmailEngine;

  before(async () => {
    dnsServer = await startDnsServer({
      "slowbanner.test": { MX: [{ exchange: "mx.slowbanner.test", priority: 10 }] },
      "mx.slowbanner.test": { A: [SLOW_BANNER] },
      "slowrcpt.test": { MX: [{ exchange: "mx.slowrcpt.test", priority: 10 }] },
      "mx.slowrcpt.test": { A: [SLOW_RCPT] },
    });
    smtp = await startSmtpServer({
      [SLOW_BANNER]: { bannerDelayMs: 25_000, mailboxes: ["erin@slowbanner.test"] },
      [SLOW_RCPT]: { firstRcptDelayMs: 40_000, mailboxes: ["fred@slowrcpt.test"] },
    });
    dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 1000 });
    engine = new EmailEngine({
      dns,
      smtpPort: smtp.port,
      heloName: "verifier.test",
      mailFrom: "probe@verifier.test",
      connectTimeoutMs: COMMAND_TIMEOUT_MS,
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      totalDeadlineMs: 10_000,
      maxConnectionsPerMx: 1,
      random: () => 0.5,
      connectSmtp: smtpConnector(),
    });
  });
  after(async () => {
    await engine?.close();
    dns?.close();
    await smtp?.close();
    await dnsServer?.close();
  });

  /** Starts a background verification; `isDone()` tells whether it has settled. */
  const start = (email: string) => {
    let isDone = false;
    const verdict = engine.verify(email, { background: { budgetMs: JOB_BUDGET_MS } }).finally(() => {
      isDone = true;
    });
    return { verdict, isDone: () => isDone };
  };
  const commandsTo = (host: string) => smtp.commands.filter((c) => c.host === host).map((c) => c.line);

  it("waits out a 25 s greeting the interactive 2 s would give up on", async (t) => {
    const clock = mockClock(t);
    const run = start("erin@slowbanner.test");
    await untilIo(() => (smtp.connections.get(SLOW_BANNER) ?? 0) === 1, "the session's connection");
    clock.tick(COMMAND_TIMEOUT_MS);
    await ioTurns(20);
    assert.equal(run.isDone(), false, "past the interactive timeout, still waiting for the greeting");
    clock.tick(25_000 - COMMAND_TIMEOUT_MS - 1);
    await ioTurns(20);
    assert.equal(run.isDone(), false, "1 ms before the greeting, still waiting");
    assert.deepEqual(commandsTo(SLOW_BANNER), [], "nothing sent before the greeting");
    clock.tick(1);
    await untilIo(run.isDone, "the verdict after the greeting");
    const v = await run.verdict;
    assert.equal(v.status, "valid", JSON.stringify(v));
    assert.equal(v.reason, "deliverable");
  });

  it("an interactive check of the same server gives up at its 2 s (the control)", async (t) => {
    const clock = mockClock(t);
    let isDone = false;
    const verdict = engine.verify("erin@slowbanner.test").finally(() => {
      isDone = true;
    });
    const opened = smtp.connections.get(SLOW_BANNER) ?? 0;
    await untilIo(() => (smtp.connections.get(SLOW_BANNER) ?? 0) > opened, "the session's connection");
    clock.tick(COMMAND_TIMEOUT_MS);
    await untilIo(() => isDone, "the interactive verdict");
    assert.equal((await verdict).reason, "smtp_timeout");
  });

  it("waits out a first RCPT answered after 40 s", async (t) => {
    const clock = mockClock(t);
    const run = start("fred@slowrcpt.test");
    await untilIo(
      () => commandsTo(SLOW_RCPT).some((line) => /^RCPT/i.test(line)),
      "the first RCPT at the server",
    );
    clock.tick(40_000 - 1);
    await ioTurns(20);
    assert.equal(run.isDone(), false, "1 ms before the answer, still waiting");
    clock.tick(1);
    await untilIo(run.isDone, "the verdict after the RCPT's answer");
    const v = await run.verdict;
    assert.equal(v.status, "valid", JSON.stringify(v));
    assert.equal(v.reason, "deliverable");
    assert.equal(smtp.connections.get(SLOW_RCPT), 1, "one session, never retried");
    assert.equal(smtp.sawData(), false, "no mail is ever sent");
  });
});

describe("a check-email job's session outwaits the interactive timeout (through the API)", () => {
  /** Longer than SMTP_COMMAND_TIMEOUT_MS (2 s) and the shortest synchronous wait (5 s). */
  const GREETING_DELAY_MS = 7000;
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
    });
    // The same port as the fake internet's MX hosts (SMTP_PORT), on one more loopback address.
    slow = await startSmtpServer(
      { [SLOW_BANNER]: { bannerDelayMs: GREETING_DELAY_MS, mailboxes: ["erin@slowbanner.test"] } },
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

  it("answers processing within the synchronous wait, then the job settles as a verdict", async () => {
    const res = await post("/v1/check-email", { email: "erin@slowbanner.test", timeout: 5 });
    assert.equal(res.statusCode, 200);
    const answer = res.json();
    assert.equal(answer.status, "processing", "the synchronous wait answers on time");
    const job = await waitFor(
      async () => {
        const j = (await get(answer.pollUrl)).json();
        return j.status === "processing" ? undefined : j;
      },
      "the job settles",
      60_000,
      250,
    );
    assert.equal(job.status, "completed");
    assert.equal(job.result.status, "valid", JSON.stringify(job.result));
    assert.equal(job.result.reason, "deliverable");
    assert.equal(slow.sawData(), false, "no mail is ever sent");
  });
});
