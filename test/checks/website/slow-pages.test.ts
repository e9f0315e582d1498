// Pages that arrive slowly, or never finish: the check measures the whole exchange, body included,
// says when the body was cut, and reads a page that never came as a timeout (ADR 0007, slow
// pages). The mocked clock drives the server's trickle, the client's timers and what they measure.
import assert from "node:assert/strict";
import { after, before, describe, it, type TestContext } from "node:test";
import { WebsiteEngine } from "../../../src/checks/website/website.engine.js";
import type { WebsiteCheckResult } from "../../../src/checks/website/website.types.js";
import { DnsResolver } from "../../../src/net/dns.js";
import { HttpClient } from "../../../src/net/http-client.js";
import { startDnsServer, type TestDnsServer } from "../../support/dns-server.js";
import { startSites, type TestSites } from "../../support/http-servers.js";
import { ioTurns, mockClock, untilIo } from "../../support/mock-clock.js";
import { createTestPki } from "../../support/test-ca.js";

const LOCAL = { A: ["127.0.0.1"] };
const PAGE = "<html><title>Slow &amp; Sons</title><h1>Slow &amp; Sons, joiners</h1>";

describe("website check on slow pages (mocked clock)", () => {
  let dnsServer: TestDnsServer;
  let dns: DnsResolver;
  let sites: TestSites;
  let ca: string;

  before(async () => {
    const pki = await createTestPki();
    ca = pki.ca.cert;
    const names = ["seven.test", "endless.test", "mute.test"];
    dnsServer = await startDnsServer(Object.fromEntries(names.map((n) => [n, LOCAL])));
    dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 60_000 });
    sites = await startSites(
      {
        // The page starts at once and ends 7 s later, a chunk a second.
        "seven.test": { body: PAGE, trickleIntervalMs: 1_000, trickleForMs: 7_000 },
        // The page starts and never ends.
        "endless.test": { body: PAGE, trickleIntervalMs: 1_000 },
        // 200 and headers, then not one byte of the page.
        "mute.test": { stallAfterHeaders: true },
      },
      { fallback: await pki.issue(names) },
    );
  });
  after(async () => {
    dns.close();
    await sites.close();
    await dnsServer.close();
  });

  /** The spec's budgets: 10 s first try, 20 s retry, 30 s for the whole check. */
  function engine() {
    const nowMs = () => Date.now();
    return new WebsiteEngine({
      dns,
      client: new HttpClient({
        dns,
        allowPrivateTargets: true,
        ca,
        httpPort: sites.httpPort,
        httpsPort: sites.httpsPort,
        nowMs,
      }),
      nowMs,
      firstTryTimeoutMs: 10_000,
      retryTimeoutMs: 20_000,
      fallbackTimeoutMs: 15_000,
      totalDeadlineMs: 30_000,
      corroborateParked: false,
    });
  }

  /** Starts a check, waits for the server to see its request, then moves the clock a second at a time. */
  async function checkWhileTicking(t: TestContext, site: string, seconds: number) {
    const clock = mockClock(t);
    let result: WebsiteCheckResult | undefined;
    const seen = sites.requests.length;
    const pending = engine()
      .check(site)
      .then((r) => {
        result = r;
      });
    await untilIo(() => sites.requests.length > seen, `the request for ${site} at the server`);
    for (let s = 0; s < seconds && result === undefined; s++) {
      clock.tick(1_000);
      await ioTurns(20);
    }
    await untilIo(() => result !== undefined, `the verdict on ${site}`);
    await pending;
    return result!;
  }

  it("measures a page that takes 7 s as 7 s, complete and active", async (t) => {
    const r = await checkWhileTicking(t, "seven.test", 12);
    assert.equal(r.status, "active");
    assert.equal(r.bodyComplete, true);
    assert.equal(r.details.body?.cut, null);
    assert.ok(r.responseTimeMs >= 7_000 && r.responseTimeMs < 8_000, `responseTimeMs ${r.responseTimeMs}`);
    assert.equal(r.details.attempts.length, 1);
  });

  it("reports a page that never ends as cut at the attempt's 10 s, still active, without a retry", async (t) => {
    const r = await checkWhileTicking(t, "endless.test", 12);
    assert.equal(r.status, "active");
    assert.equal(r.httpStatus, 200);
    assert.equal(r.bodyComplete, false);
    assert.equal(r.details.body?.cut, "timeout");
    assert.ok((r.details.body?.bytes ?? 0) >= PAGE.length);
    assert.equal(r.isParked, false, "judged on what arrived");
    assert.equal(r.responseTimeMs, 10_000);
    assert.deepEqual(
      r.details.attempts.map((a) => `${a.step}:${a.outcome}`),
      ["initial:ok"],
    );
  });

  it("reads headers followed by no page at all as a timeout: retried, then inactive, no page judged", async (t) => {
    const r = await checkWhileTicking(t, "mute.test", 31);
    assert.deepEqual(
      r.details.attempts.map((a) => `${a.step}:${a.outcome}`),
      ["initial:timeout", "retry:timeout"],
    );
    assert.equal(r.status, "inactive");
    assert.equal(r.isParked, null);
    assert.equal(r.bodyComplete, false);
    assert.equal(r.details.body?.bytes, 0);
    assert.equal(r.responseTimeMs, 30_000);
    assert.match(
      r.details.attempts[0]!.error ?? "",
      /status 200 arrived, then none of the page within 10000 ms/,
    );
  });
});
