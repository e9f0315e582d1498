import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { DnsblChecker } from "../../src/intel/dnsbl.js";
import { DomainIntelEngine } from "../../src/intel/domain-intel.js";
import { RdapBootstrap } from "../../src/intel/rdap-bootstrap.js";
import { DnsResolver } from "../../src/net/dns.js";
import { HttpClient } from "../../src/net/http-client.js";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.js";
import { type FakeRdap, startRdapServer } from "../support/rdap-server.js";
import { createTestPki } from "../support/test-ca.js";

const NOW = Date.parse("2026-11-24T12:00:00Z");
const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(NOW - n * DAY).toISOString();

describe("DomainIntelEngine against a local RDAP server (HTTP and HTTPS) and a local DNS server", () => {
  let dns: TestDnsServer;
  let rdap: FakeRdap;
  let resolver: DnsResolver;
  let http: HttpClient;
  let now = NOW;
  const clock = { now: () => new Date(now) };
  const warnings: string[] = [];

  before(async () => {
    const pki = await createTestPki();
    rdap = await startRdapServer(
      {
        "old.test": {
          kind: "registered",
          registeredAt: "2009-03-15T04:00:00Z",
          expiresAt: "2027-03-15T04:00:00Z",
          registrar: "Example Registrar, Inc.",
        },
        "young.test": { kind: "registered", registeredAt: daysAgo(12), registrar: "Fresh Names LLC" },
        "slow.test": { kind: "slow", delayMs: 10_000 },
        "garbage.test": { kind: "malformed", body: "<html>rate limited</html>", contentType: "text/html" },
        "notdomain.test": { kind: "malformed", body: JSON.stringify({ objectClassName: "entity" }) },
        "broken.test": { kind: "status", status: 503 },
        "plain.example": { kind: "registered", registeredAt: daysAgo(400) },
      },
      await pki.issue(["rdap.test"]),
    );
    dns = await startDnsServer({
      "rdap.test": { A: ["127.0.0.1"] },
      // Mail records
      "old.test": {
        MX: [{ exchange: "mx.old.test", priority: 10 }],
        TXT: ["google-site-verification=abc", "v=spf1 include:_spf.example.test ~all"],
        A: ["127.0.0.1"],
      },
      "mx.old.test": { A: ["127.0.0.20"] },
      "_dmarc.old.test": { TXT: ["v=DMARC1; p=reject; rua=mailto:d@old.test"] },
      "young.test": { MX: [{ exchange: "mx.young.test", priority: 10 }] },
      "mx.young.test": { A: ["127.0.0.21"] },
      "sub.young.test": { MX: [{ exchange: "mx.young.test", priority: 10 }], TXT: ["v=spf1 -all"] },
      "_dmarc.young.test": { TXT: ["v=DMARC1; p=quarantine"] },
      "nullmx.test": { MX: [{ exchange: "", priority: 0 }], TXT: ["v=spf1 -all"] },
      // Block lists: a listed domain, a refused query, an MX address listed in the IP zone.
      "young.test.dbl.spamhaus.org": { A: ["127.0.1.2"], ttl: 600 },
      "refused.test.dbl.spamhaus.org": { A: ["127.255.255.254"] },
      "refused2.test.dbl.spamhaus.org": { A: ["127.255.255.254"] },
      "21.0.0.127.zen.spamhaus.org": { A: ["127.0.0.2", "127.0.0.4"] },
      "20.0.0.127.zen.spamhaus.org": { rcode: "SERVFAIL" },
      "young.test.multi.surbl.org": { A: ["127.0.0.1"] },
      "old.test.bl.example.test": { A: ["127.0.0.2"] },
      "young.test.bl.example.test": { A: ["127.255.255.254"] },
      "slowdns.test": { silent: true },
    });
    resolver = new DnsResolver({ servers: [dns.address], timeoutMs: 300 });
    http = new HttpClient({ dns: resolver, allowPrivateTargets: true, ca: pki.ca.cert });
  });

  after(async () => {
    resolver.close();
    await Promise.all([dns.close(), rdap.close()]);
  });

  beforeEach(() => {
    now = NOW;
    warnings.length = 0;
    resolver.clearCache();
  });

  function engine(
    overrides: { domainZones?: string[]; ipZones?: string[]; rdapTimeoutMs?: number; budgetMs?: number } = {},
  ) {
    const bootstrap = new RdapBootstrap({
      publication: "2026-11-01T00:00:00Z",
      services: [
        [["test"], [rdap.httpsBase]],
        [["example"], [rdap.httpBase]],
      ],
    });
    const dnsbl = new DnsblChecker({
      dns: resolver,
      domainZones: overrides.domainZones ?? ["dbl.spamhaus.org"],
      ipZones: overrides.ipZones ?? ["zen.spamhaus.org"],
      warn: (_zone, message) => warnings.push(message),
    });
    return new DomainIntelEngine({
      dns: resolver,
      rdap: { http, bootstrap, timeoutMs: overrides.rdapTimeoutMs ?? 2000 },
      dnsbl,
      clock,
      budgetMs: overrides.budgetMs ?? 5000,
    });
  }

  it("reads registration, expiration and registrar of a registered domain over HTTPS", async () => {
    const intel = await engine().lookup("Old.Test");
    assert.equal(intel.registrableDomain, "old.test");
    assert.deepEqual(intel.age, {
      status: "registered",
      registeredAt: "2009-03-15T04:00:00.000Z",
      expiresAt: "2027-03-15T04:00:00.000Z",
      registrar: "Example Registrar, Inc.",
      ageDays: Math.floor((NOW - Date.parse("2009-03-15T04:00:00Z")) / DAY),
      rdapServer: rdap.httpsBase,
    });
  });

  it("asks the registry about the registrable domain, not the host", async () => {
    const before = rdap.queries.length;
    const standing = await engine().standing("www.shop.young.test");
    assert.equal(standing.registrableDomain, "young.test");
    assert.deepEqual(rdap.queries.slice(before), ["young.test"]);
    assert.equal(standing.age.status === "registered" && standing.age.ageDays, 12);
  });

  it("queries a registry over plain HTTP when the bootstrap names an http base", async () => {
    const age = (await engine().standing("plain.example")).age;
    assert.equal(age.status, "registered");
    assert.equal(age.status === "registered" && age.ageDays, 400);
    assert.equal(age.status === "registered" && age.registrar, null);
  });

  it("reports an RDAP 404 as not registered", async () => {
    assert.deepEqual((await engine().standing("nobody-holds-this.test")).age, {
      status: "not_registered",
      rdapServer: rdap.httpsBase,
    });
  });

  it("reports a TLD without RDAP in the bootstrap as unsupported, without any request", async () => {
    const before = rdap.sites.requests.length;
    const intel = engine();
    assert.deepEqual((await intel.standing("company.nordap")).age, {
      status: "unsupported",
      reason: "no_rdap_server",
    });
    assert.deepEqual((await intel.standing("127.0.0.1")).age, {
      status: "unsupported",
      reason: "no_registrable_domain",
    });
    assert.equal(rdap.sites.requests.length, before);
    assert.equal(intel.rdapLookups, 0);
  });

  it("reports a slow registry as unknown (timeout) within the RDAP timeout", async () => {
    const age = (await engine({ rdapTimeoutMs: 200 }).standing("slow.test")).age;
    assert.equal(age.status, "unknown");
    assert.equal(age.status === "unknown" && age.reason, "timeout");
  });

  it("answers within the caller's budget while the registry is still thinking", async () => {
    const age = (await engine({ rdapTimeoutMs: 10_000 }).standing("slow.test", { budgetMs: 100 })).age;
    assert.deepEqual(
      { status: age.status, reason: age.status === "unknown" ? age.reason : null },
      { status: "unknown", reason: "timeout" },
    );
  });

  it("reports malformed answers and server errors as unknown with their reason", async () => {
    const intel = engine();
    const reasons = await Promise.all(
      ["garbage.test", "notdomain.test", "broken.test"].map(async (d) => {
        const age = (await intel.standing(d)).age;
        return age.status === "unknown" ? age.reason : age.status;
      }),
    );
    assert.deepEqual(reasons, ["malformed_response", "malformed_response", "http_error"]);
  });

  it("caches per registrable domain for 24 hours, negative answers included", async () => {
    const intel = engine();
    const before = rdap.queries.length;
    await Promise.all([
      intel.standing("old.test"),
      intel.standing("www.old.test"),
      intel.standing("old.test"),
    ]);
    await intel.standing("nobody2.test");
    await intel.standing("nobody2.test");
    assert.deepEqual(rdap.queries.slice(before), ["old.test", "nobody2.test"]);
    assert.equal(intel.rdapLookups, 2);
    now = NOW + 23 * 3600_000;
    await intel.standing("old.test");
    await intel.standing("nobody2.test");
    assert.equal(rdap.queries.length, before + 2);
    now = NOW + 25 * 3600_000;
    const aged = (await intel.standing("old.test")).age;
    await intel.standing("nobody2.test");
    assert.deepEqual(rdap.queries.slice(before + 2), ["old.test", "nobody2.test"]);
    assert.equal(
      aged.status === "registered" && aged.ageDays,
      Math.floor((now - Date.parse("2009-03-15T04:00:00Z")) / DAY),
    );
  });

  it("retries a failed registry lookup after 5 minutes, not 24 hours", async () => {
    const intel = engine();
    const before = rdap.queries.length;
    await intel.standing("broken.test");
    await intel.standing("broken.test");
    assert.equal(rdap.queries.length, before + 1);
    now = NOW + 6 * 60_000;
    await intel.standing("broken.test");
    assert.equal(rdap.queries.length, before + 2);
  });

  it("reads SPF with its all qualifier, DMARC with its policy, and no Null MX", async () => {
    const intel = await engine().lookup("old.test");
    assert.deepEqual(intel.spf, {
      status: "present",
      all: "~all",
      record: "v=spf1 include:_spf.example.test ~all",
    });
    assert.deepEqual(
      { status: intel.dmarc.status, policy: intel.dmarc.policy, foundAt: intel.dmarc.foundAt },
      { status: "present", policy: "reject", foundAt: "old.test" },
    );
    assert.equal(intel.nullMx, false);
  });

  it("falls back to the organisational domain's DMARC record and reports a missing SPF as absent", async () => {
    const sub = await engine().lookup("sub.young.test");
    assert.equal(sub.dmarc.policy, "quarantine");
    assert.equal(sub.dmarc.foundAt, "young.test");
    assert.equal(sub.spf.all, "-all");
    const young = await engine().lookup("young.test");
    assert.deepEqual(young.spf, { status: "absent", all: null, record: null });
  });

  it("recognises a Null MX domain", async () => {
    const intel = await engine().lookup("nullmx.test");
    assert.equal(intel.nullMx, true);
    assert.equal(intel.dmarc.status, "absent");
  });

  it("reports DNS failures of the mail records as unknown, never absent", async () => {
    const intel = await engine({ budgetMs: 5000 }).lookup("slowdns.test");
    assert.equal(intel.spf.status, "unknown");
    assert.equal(intel.nullMx, null);
  });

  it("finds a listed domain and a listed MX address, reading each zone's codes", async () => {
    const intel = await engine().lookup("young.test");
    assert.equal(intel.reputation.status, "listed");
    assert.equal(intel.reputation.domainListed, true);
    assert.equal(intel.reputation.mxListed, true);
    const byZone = Object.fromEntries(intel.reputation.answers.map((a) => [`${a.kind} ${a.zone}`, a]));
    assert.deepEqual(byZone["domain dbl.spamhaus.org"], {
      zone: "dbl.spamhaus.org",
      subject: "young.test",
      kind: "domain",
      status: "listed",
      codes: ["127.0.1.2"],
      meaning: "spam domain",
    });
    assert.equal(byZone["ip zen.spamhaus.org"]?.subject, "127.0.0.21");
    assert.equal(byZone["ip zen.spamhaus.org"]?.meaning, "SBL: spam source");
  });

  it("reports a clean domain as not listed (NXDOMAIN) and a failing IP lookup as unknown", async () => {
    const intel = await engine().lookup("old.test");
    assert.equal(intel.reputation.domainListed, false);
    assert.equal(intel.reputation.mxListed, null);
    assert.equal(intel.reputation.status, "unknown");
    const clean = await engine({ ipZones: [] }).lookup("old.test");
    assert.equal(clean.reputation.status, "clean");
  });

  it("reads Spamhaus refusal codes as unknown, never listed, and warns once per zone", async () => {
    const intel = engine();
    const first = await intel.standing("refused.test");
    const second = await intel.standing("refused2.test");
    for (const s of [first, second]) {
      assert.equal(s.reputation.status, "unknown");
      assert.equal(s.reputation.domainListed, null);
      assert.match(s.reputation.answers[0]!.meaning ?? "", /public or open resolver/);
    }
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /dbl\.spamhaus\.org refused our query \(127\.255\.255\.254/);
  });

  it("reads 127.0.0.1 as a refusal in SURBL but as a listing code elsewhere per the zone", async () => {
    const surbl = await engine({ domainZones: ["multi.surbl.org"], ipZones: [] }).standing("young.test");
    assert.equal(surbl.reputation.answers[0]!.status, "unknown");
    assert.equal(warnings.length, 1);
    const generic = await engine({ domainZones: ["bl.example.test"], ipZones: [] }).standing("old.test");
    assert.equal(generic.reputation.domainListed, true);
  });

  it("reads an answer in 127.255.255.0/24 from a zone it has no table for as unknown with the reason, and warns once", async () => {
    const intel = engine({ domainZones: ["bl.example.test"], ipZones: [] });
    const standing = await intel.standing("young.test");
    assert.equal(standing.reputation.status, "unknown");
    assert.equal(standing.reputation.domainListed, null);
    const answer = standing.reputation.answers[0]!;
    assert.equal(answer.status, "unknown");
    assert.deepEqual(answer.codes, ["127.255.255.254"]);
    assert.match(answer.meaning ?? "", /127\.255\.255\.0\/24, the lists' error range/);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /bl\.example\.test refused our query/);
  });

  it("asks a block list once per name within its TTL", async () => {
    const intel = engine();
    const count = () => dns.queries.filter((q) => q === "A young.test.dbl.spamhaus.org").length;
    const before = count();
    await intel.standing("young.test");
    await intel.standing("www.young.test");
    await intel.lookup("young.test");
    assert.equal(count(), before + 1);
  });

  it("turns block lists off with no zones", async () => {
    const intel = await engine({ domainZones: [], ipZones: [] }).lookup("young.test");
    assert.deepEqual(intel.reputation, { status: "off", domainListed: null, mxListed: null, answers: [] });
  });
});
