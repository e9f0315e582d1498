import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DnsResolver } from "../../src/net/dns.js";
import { HttpClient } from "../../src/net/http-client.js";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.js";
import { closedPort, startSites, type TestSites } from "../support/http-servers.js";
import { createTestPki } from "../support/test-ca.js";
import { waitFor } from "../support/wait-for.js";

const LOCAL = { A: ["127.0.0.1"] };

describe("HttpClient against local servers", () => {
  let dnsServer: TestDnsServer;
  let dns: DnsResolver;
  let sites: TestSites;
  let client: HttpClient;
  let ca: string;

  before(async () => {
    const pki = await createTestPki();
    ca = pki.ca.cert;
    const inter = await pki.issueViaIntermediate(["chain.test"]);
    const full = await pki.issueViaIntermediate(["fullchain.test"]);
    dnsServer = await startDnsServer({
      "ok.test": LOCAL,
      "slow.test": LOCAL,
      "huge.test": LOCAL,
      "trickle.test": LOCAL,
      "redirect.test": LOCAL,
      "echo.test": LOCAL,
      "expired.test": LOCAL,
      "self.test": LOCAL,
      "wrong.test": LOCAL,
      "chain.test": LOCAL,
      "fullchain.test": LOCAL,
      "rogue.test": LOCAL,
      "hangup.test": LOCAL,
    });
    dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 2_000 });
    sites = await startSites(
      {
        "ok.test": { body: "<h1>hello</h1>" },
        "slow.test": { delayMs: 5_000 },
        "huge.test": { hugeBytes: 5_000_000 },
        "trickle.test": { body: "<html>", trickleIntervalMs: 20 },
        "redirect.test": { location: "https://ok.test/" },
        "echo.test": (req) => ({
          body: `${req.method} ${req.headers["content-type"]} ${req.headers["x-extra"]}`,
        }),
        "hangup.test": { hangUp: true },
      },
      {
        fallback: await pki.issue([
          "ok.test",
          "slow.test",
          "huge.test",
          "trickle.test",
          "redirect.test",
          "echo.test",
          "hangup.test",
        ]),
        byName: {
          "expired.test": await pki.issue(["expired.test"], {
            notBefore: new Date(Date.now() - 60 * 86_400_000),
            notAfter: new Date(Date.now() - 86_400_000),
          }),
          "self.test": await pki.selfSigned(["self.test"]),
          "wrong.test": await pki.issue(["other.test"]),
          "chain.test": inter,
          "fullchain.test": { key: full.key, cert: full.cert + pki.intermediate.cert },
          "rogue.test": await pki.issueByRogue(["rogue.test"]),
        },
      },
    );
    client = new HttpClient({
      dns,
      allowPrivateTargets: true,
      ca,
      httpPort: sites.httpPort,
      httpsPort: sites.httpsPort,
    });
  });

  after(async () => {
    dns.close();
    await sites.close();
    await dnsServer.close();
  });

  const get = (url: string, extra: Partial<Parameters<HttpClient["request"]>[0]> = {}) =>
    client.request({ url: new URL(url), timeoutMs: 5_000, maxBodyBytes: 1024, ...extra });

  it("connects to the resolved address with SNI and Host set to the name, timing every phase", async () => {
    const out = await get("https://ok.test/");
    assert.ok(out.ok, JSON.stringify(out));
    assert.equal(out.status, 200);
    assert.equal(out.address, "127.0.0.1");
    assert.equal(out.body.toString(), "<h1>hello</h1>");
    assert.equal(out.tls?.valid, true);
    assert.match(out.tls?.issuer ?? "", /leadcheck test root/);
    assert.ok((out.tls?.daysToExpiry ?? 0) >= 88);
    for (const phase of ["dnsMs", "connectMs", "tlsMs", "firstByteMs"] as const) {
      assert.equal(typeof out.timings[phase], "number", phase);
    }
    assert.deepEqual(sites.requests.at(-1), { scheme: "https", host: "ok.test", path: "/" });
  });

  it("never resumes a TLS session: every exchange verifies the certificate afresh", async () => {
    for (let i = 0; i < 3; i++) assert.ok((await get("https://ok.test/")).ok);
    assert.equal(sites.resumedSessions(), 0);
  });

  it("returns a redirect as it is, without following it", async () => {
    const out = await get("http://redirect.test/");
    assert.ok(out.ok);
    assert.equal(out.status, 302);
    assert.equal(out.headers.location, "https://ok.test/");
    assert.equal(out.tls, null);
  });

  it("accepts a chain completed by the server's intermediate", async () => {
    const out = await get("https://fullchain.test/");
    assert.ok(out.ok, JSON.stringify(out));
    assert.equal(out.tls?.valid, true);
  });

  const badCerts: [string, string][] = [
    ["expired.test", "expired"],
    ["self.test", "self_signed"],
    ["wrong.test", "hostname_mismatch"],
    ["chain.test", "untrusted_chain"],
    ["rogue.test", "untrusted_chain"],
  ];
  for (const [host, problem] of badCerts) {
    it(`refuses to send a request over a ${problem} certificate (${host})`, async () => {
      const before = sites.requests.length;
      const out = await get(`https://${host}/`);
      assert.equal(out.ok, false);
      assert.ok(!out.ok && out.failure === "tls");
      assert.equal(out.tls?.valid, false);
      assert.equal(out.tls?.problem, problem);
      assert.ok(out.tls?.issuer);
      assert.equal(sites.requests.length, before, "the server saw no request");
    });
  }

  it("reports days to expiry as negative for an expired certificate", async () => {
    const out = await get("https://expired.test/");
    assert.ok((out.tls?.daysToExpiry ?? 0) < 0);
  });

  it("refuses private targets before connecting when they are not allowed", async () => {
    const strict = new HttpClient({ dns, allowPrivateTargets: false, httpPort: sites.httpPort });
    const accepted = sites.acceptedConnections();
    const out = await strict.request({ url: new URL("http://ok.test/"), timeoutMs: 5_000 });
    assert.ok(!out.ok && out.failure === "blocked" && out.blockReason === "loopback");
    assert.equal(sites.acceptedConnections(), accepted);
  });

  it("fails fast with refused on a closed port and dns on an unknown name", async () => {
    const port = await closedPort();
    const refused = await get(`http://ok.test:${port}/`);
    assert.ok(!refused.ok && refused.failure === "refused");
    const missing = await get("http://missing.test/");
    assert.ok(!missing.ok && missing.failure === "dns" && missing.dnsFailure === "NXDOMAIN");
  });

  it("times out a slow site and closes the connection", async () => {
    const out = await get("http://slow.test/", { timeoutMs: 150 });
    assert.ok(!out.ok && out.failure === "timeout");
    await waitFor(() => sites.openConnections() === 0, "every connection to the sites closed", 2000);
  });

  it("reads at most maxBodyBytes of a huge body and hangs up", async () => {
    const out = await get("http://huge.test/", { maxBodyBytes: 256 * 1024 });
    assert.ok(out.ok);
    assert.equal(out.bodyTruncated, "size");
    assert.equal(out.body.length, 256 * 1024);
    await waitFor(() => sites.openConnections() === 0, "every connection to the sites closed", 2000);
  });

  it("keeps the status of a trickling body and stops reading at the body budget", async () => {
    const out = await get("http://trickle.test/", { bodyTimeoutMs: 100 });
    assert.ok(out.ok);
    assert.equal(out.status, 200);
    assert.equal(out.bodyTruncated, "timeout");
    assert.ok(out.body.toString().startsWith("<html>"));
    await waitFor(() => sites.openConnections() === 0, "every connection to the sites closed", 2000);
  });

  it("reports a hang-up before any response as a reset", async () => {
    const out = await get("http://hangup.test/");
    assert.ok(!out.ok && out.failure === "reset", JSON.stringify(out));
  });

  it("sends a method, body and headers (webhook deliveries)", async () => {
    const out = await get("https://echo.test/", {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json", "x-extra": "1" },
    });
    assert.ok(out.ok);
    assert.equal(out.body.toString(), "POST application/json 1");
  });
});

describe("HttpClient to an IP-literal https URL", () => {
  let withIp: TestSites;
  let withoutIp: TestSites;
  let dns: DnsResolver;
  let client: HttpClient;

  before(async () => {
    const pki = await createTestPki();
    withIp = await startSites(
      { "127.0.0.1": { body: "by address" } },
      { fallback: await pki.issue(["127.0.0.1"]) },
    );
    withoutIp = await startSites(
      { "127.0.0.1": { body: "by address" } },
      { fallback: await pki.issue(["ok.test"]) },
    );
    // An IP literal is never looked up; the resolver points nowhere to prove it.
    dns = new DnsResolver({ servers: ["127.0.0.1:1"], timeoutMs: 100 });
    client = new HttpClient({ dns, allowPrivateTargets: true, ca: pki.ca.cert });
  });
  after(async () => {
    dns.close();
    await Promise.all([withIp.close(), withoutIp.close()]);
  });

  it("accepts a certificate that carries the address (no SNI, the address checked, not 'localhost')", async () => {
    const out = await client.request({
      url: new URL(`https://127.0.0.1:${withIp.httpsPort}/`),
      timeoutMs: 5_000,
      maxBodyBytes: 1024,
    });
    assert.ok(out.ok, JSON.stringify(out));
    assert.equal(out.tls?.valid, true);
    assert.equal(out.body.toString(), "by address");
  });

  it("still reports hostname_mismatch when the certificate does not carry the address", async () => {
    const out = await client.request({
      url: new URL(`https://127.0.0.1:${withoutIp.httpsPort}/`),
      timeoutMs: 5_000,
      maxBodyBytes: 1024,
    });
    assert.ok(!out.ok && out.failure === "tls");
    assert.equal(out.tls?.problem, "hostname_mismatch");
    assert.equal(withoutIp.requests.length, 0, "no request over the mismatched certificate");
  });
});
