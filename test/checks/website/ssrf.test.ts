// Every URL of the shared must-block list is refused by the website engine, and the sentinel
// servers (listening where those URLs would land: 127.0.0.1 on the engine's default ports)
// never see a connection. Names that need outside DNS resolve through the local test zone.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { WebsiteEngine } from "../../../src/checks/website/website.engine.js";
import { DnsResolver } from "../../../src/net/dns.js";
import { HttpClient } from "../../../src/net/http-client.js";
import { startDnsServer, type TestDnsServer } from "../../support/dns-server.js";
import { startSites, type TestSites } from "../../support/http-servers.js";
import { createTestPki } from "../../support/test-ca.js";

const LIST = JSON.parse(readFileSync("/work/shared/data/ssrf/must-block-urls.json", "utf8")) as {
  urls: string[];
};

const OUTSIDE_NAMES = {
  "localtest.me": { A: ["127.0.0.1"] },
  "customer1.app.localhost.my.company.127.0.0.1.nip.io": { A: ["127.0.0.1"] },
  "mail.ebc.apple.com": { A: ["127.0.0.6"] },
  "bugbounty.dod.network": { A: ["127.0.0.2"] },
  "spoofed.burpcollaborator.net": { A: ["127.0.0.1"] },
  "169.254.169.254.xip.io": { A: ["169.254.169.254"] },
  "1ynrnhl.xip.io": { A: ["169.254.169.254"] },
  "www.owasp.org.1ynrnhl.xip.io": { A: ["169.254.169.254"] },
  "a.127.0.0.1.1time.10.0.0.1.1time.repeat.8f058b82-4c39-4dfe-91f7-9b07bcd7fbd5.rebind.network": {
    A: ["127.0.0.1"],
    ttl: 0,
  },
  "metadata.nicob.net": { A: ["169.254.169.254"], AAAA: ["fd00:ec2::254"] },
  localhost: { A: ["127.0.0.1"], AAAA: ["::1"] },
};

describe("SSRF: the shared must-block list", () => {
  let dnsServer: TestDnsServer;
  let dns: DnsResolver;
  let sentinel: TestSites;
  let engine: WebsiteEngine;

  before(async () => {
    const pki = await createTestPki();
    dnsServer = await startDnsServer(OUTSIDE_NAMES);
    dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 2_000 });
    sentinel = await startSites({}, { fallback: await pki.issue(Object.keys(OUTSIDE_NAMES)) });
    engine = new WebsiteEngine({
      dns,
      client: new HttpClient({
        dns,
        allowPrivateTargets: false,
        ca: pki.ca.cert,
        httpPort: sentinel.httpPort,
        httpsPort: sentinel.httpsPort,
      }),
      firstTryTimeoutMs: 4_000,
      retryTimeoutMs: 4_000,
      fallbackTimeoutMs: 4_000,
      totalDeadlineMs: 10_000,
    });
  });

  after(async () => {
    dns.close();
    await sentinel.close();
    await dnsServer.close();
  });

  it("has the list to test", () => {
    assert.ok(LIST.urls.length >= 50);
  });

  for (const url of LIST.urls) {
    it(`refuses ${url}`, async () => {
      const r = await engine.check(url);
      assert.equal(r.status, "error");
      assert.equal(r.valid, false);
      const refused = r.details.rejected !== null || r.details.attempts.every((a) => a.outcome === "blocked");
      assert.ok(refused, JSON.stringify(r.details.attempts.map((a) => [a.url, a.outcome, a.error])));
      assert.ok(r.details.attempts.length <= 1, "a refused target gets no retry or fallback");
      assert.ok(r.error && r.error.length > 0);
    });
  }

  it("a rebinding name stays refused when its answer flips to another private address", async () => {
    const name =
      "a.127.0.0.1.1time.10.0.0.1.1time.repeat.8f058b82-4c39-4dfe-91f7-9b07bcd7fbd5.rebind.network";
    dnsServer.set(name, { A: ["10.0.0.1"], ttl: 0 });
    dns.clearCache();
    const r = await engine.check(`https://${name}`);
    assert.equal(r.details.attempts[0]?.outcome, "blocked");
    assert.match(r.error ?? "", /10\.0\.0\.1/);
  });

  it("no sentinel ever saw a connection", () => {
    assert.equal(sentinel.acceptedConnections(), 0);
    assert.equal(sentinel.requests.length, 0);
  });
});
