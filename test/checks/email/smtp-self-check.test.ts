import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EmailEngine } from "../../../src/checks/email/email-engine.js";
import { heloIdentityWarnings, SmtpSelfCheck } from "../../../src/checks/email/smtp-self-check.js";
import { DnsResolver } from "../../../src/net/dns.js";
import { smtpConnector } from "../../../src/net/smtp-client.js";
import { startDnsServer, type TestDnsServer } from "../../support/dns-server.js";
import { type FakeInternet, startFakeInternet } from "../../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../../support/harness.js";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server.js";

const LISTENING = "127.0.0.40";
const NOTHING_LISTENS = "127.0.0.41";

describe("SMTP egress and identity self-checks against local DNS and SMTP servers", () => {
  let dnsServer: TestDnsServer;
  let smtp: TestSmtpServer;
  let dns: DnsResolver;
  const selfCheck = (probeHost: string, heloName = "verifier.selfcheck.test") =>
    new SmtpSelfCheck({ dns, heloName, probeHost, port: smtp.port, timeoutMs: 1000 });

  before(async () => {
    smtp = await startSmtpServer({ [LISTENING]: { mailboxes: ["a@mx-domain.test"] } });
    dnsServer = await startDnsServer({
      "mx.reachable.test": { A: [LISTENING] },
      "mx.unreachable.test": { A: [NOTHING_LISTENS] },
      "mx-domain.test": { MX: [{ exchange: "mx.reachable.test", priority: 10 }] },
      // A HELO name whose A and PTR agree with the loopback egress address.
      "verifier.selfcheck.test": { A: ["127.0.0.1"] },
      "1.0.0.127.in-addr.arpa": { PTR: ["verifier.selfcheck.test"] },
      // A and PTR that disagree.
      "wrong.selfcheck.test": { A: ["127.0.0.9"] },
      "9.0.0.127.in-addr.arpa": { PTR: ["something-else.example"] },
    });
    dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 1000 });
  });
  after(async () => {
    dns.close();
    await smtp.close();
    await dnsServer.close();
  });

  it("finds port 25 reachable and the HELO name's A and PTR matching the egress address", async () => {
    const check = selfCheck("mx.reachable.test");
    assert.equal(check.snapshot().egress, "unchecked");
    const s = await check.run();
    assert.equal(s.egress, "ok", s.egressMessage);
    assert.equal(s.egressAddress, "127.0.0.1");
    assert.deepEqual(s.heloWarnings, []);
    assert.ok(s.checkedAt);
    assert.equal(check.isEgressBlocked(), false);
  });

  it("keeps its last egress finding when the probe host does not resolve (DNS, not port 25)", async () => {
    // A resolver of its own: the shared one's cache would keep answering after the zone goes.
    const fresh = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 1000, maxTtlSeconds: 0 });
    const check = new SmtpSelfCheck({
      dns: fresh,
      heloName: "verifier.selfcheck.test",
      probeHost: "mx.reachable.test",
      port: smtp.port,
      timeoutMs: 1000,
    });
    assert.equal((await check.run()).egress, "ok");
    dnsServer.setMode("nxdomain");
    try {
      const s = await check.run();
      assert.equal(s.egress, "ok", "an unresolvable probe host is no evidence of a firewall");
      assert.match(s.egressMessage ?? "", /cannot resolve mx\.reachable\.test/);
    } finally {
      dnsServer.setMode("normal");
      fresh.close();
    }
  });

  it("reports egress blocked when nothing answers on port 25", async () => {
    const check = selfCheck("mx.unreachable.test");
    const s = await check.run();
    assert.equal(s.egress, "blocked");
    assert.match(s.egressMessage ?? "", /mx\.unreachable\.test/);
    assert.equal(check.isEgressBlocked(), true);
  });

  it("warns about a HELO name that is not fully qualified, has no A record, or whose PTR disagrees", async () => {
    assert.match((await heloIdentityWarnings(dns, "localhost", undefined))[0]!, /not a fully qualified/);
    assert.match((await heloIdentityWarnings(dns, "mail.local", undefined))[0]!, /not a fully qualified/);
    assert.match((await heloIdentityWarnings(dns, "10.0.0.1", undefined))[0]!, /not a fully qualified/);
    const missing = await heloIdentityWarnings(dns, "nothing.selfcheck.test", "127.0.0.1");
    assert.ok(
      missing.some((w) => /no A record/.test(w)),
      missing.join("; "),
    );
    const wrong = await heloIdentityWarnings(dns, "wrong.selfcheck.test", "127.0.0.1");
    assert.ok(
      wrong.some((w) => /is not the egress address 127\.0\.0\.1/.test(w)),
      wrong.join("; "),
    );
    assert.ok(
      wrong.some((w) => /PTR of 127\.0\.0\.1 is verifier\.selfcheck\.test/.test(w)),
      wrong.join("; "),
    );
    const noEgress = await heloIdentityWarnings(dns, "wrong.selfcheck.test", undefined);
    assert.ok(noEgress.some((w) => /PTR of 127\.0\.0\.9 is something-else\.example/.test(w)));
  });

  it("answers unknown with egress_blocked for anything that needs SMTP, while DNS answers stand", async () => {
    const check = selfCheck("mx.unreachable.test");
    await check.run();
    const engine = new EmailEngine({
      dns,
      connectSmtp: smtpConnector(),
      smtpPort: smtp.port,
      heloName: "verifier.selfcheck.test",
      mailFrom: "probe@verifier.selfcheck.test",
      connectTimeoutMs: 2000,
      commandTimeoutMs: 2000,
      totalDeadlineMs: 10000,
      maxConnectionsPerMx: 2,
      isEgressBlocked: () => check.isEgressBlocked(),
    });
    const before = smtp.totalConnections();
    const [probed, missing] = await engine.verifyMany(["a@mx-domain.test", "a@no-such-domain.test"]);
    assert.equal(probed!.reason, "egress_blocked");
    assert.equal(probed!.status, "unknown");
    assert.equal(probed!.valid, null, "unknown is never written as false");
    assert.equal(missing!.reason, "dns_nxdomain");
    assert.equal(smtp.totalConnections(), before, "no SMTP connection was attempted");
    await engine.close();
  });
});

describe("the self-check as a detail of /readiness", () => {
  let net: FakeInternet;
  let h: Harness;
  before(async () => {
    net = await startFakeInternet();
    h = await startHarness("sqlite", { ...net.env, ...UNLIMITED_RATE_ENV });
  });
  after(async () => {
    await h?.close();
    await net?.close();
  });

  it("shows egress and HELO findings without making the service unready", async () => {
    const first = (await h.app.inject({ method: "GET", url: "/readiness" })).json();
    assert.equal(first.details.smtp.egress, "unchecked");
    await h.services.smtpSelfCheck.run();
    const res = await h.app.inject({ method: "GET", url: "/readiness" });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.status, "ready");
    assert.equal(body.details.smtp.egress, "ok", body.details.smtp.egressMessage);
    assert.equal(body.details.smtp.heloName, "verifier.leadcheck.test");
    // The fake internet publishes no A record for the HELO name: the self-check says so.
    assert.ok(body.details.smtp.heloWarnings.some((w: string) => /no A record/.test(w)));
  });
});
