// Domain intelligence through the API: lead validation, the check endpoints and the lead filters,
// against the local fake internet plus a fake RDAP registry whose bootstrap file is served over
// HTTPS (RDAP_BOOTSTRAP_URL).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { skipReasonFor } from "../support/db.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { type FakeRdap, startRdapServer } from "../support/rdap-server.js";
import { waitFor } from "../support/wait-for.js";

const DAY = 86_400_000;

describe("domain intelligence through the API (sqlite)", async () => {
  const skip = await skipReasonFor("sqlite");
  let net: FakeInternet;
  let rdap: FakeRdap;
  let h: Harness;
  let key = "";
  const call = (method: "GET" | "POST", url: string, payload?: unknown) => h.call(key, method, url, payload);
  const settled = (id: string) =>
    waitFor(
      async () => {
        const lead = (await call("GET", `/v1/leads/${id}`)).json();
        return ["new", "processing"].includes(lead.validationStatus) ? undefined : lead;
      },
      `lead ${id} validated`,
      20_000,
      50,
    );
  const codes = (lead: { ratingFactors: { code: string; points: number }[] }) =>
    Object.fromEntries(lead.ratingFactors.map((f) => [f.code, f.points]));

  before(async () => {
    if (skip) return;
    net = await startFakeInternet({
      "rdap.test": { A: ["127.0.0.1"] },
      "young.test": { A: ["127.0.0.1"], MX: [{ exchange: "mx.catchall.test", priority: 10 }] },
      "young.test.dbl.spamhaus.org": { A: ["127.0.1.2"] },
      "hotmial.com": { MX: [{ exchange: "mx.catchall.test", priority: 10 }] },
      "gmx.co": { MX: [{ exchange: "mx.catchall.test", priority: 10 }] },
      "renewal.test": {
        A: ["127.0.0.1"],
        MX: [{ exchange: "mx.catchall.test", priority: 10 }],
        TXT: ["v=spf1 mx -all"],
      },
    });
    net.sites.set("renewal.test", {
      body: "<html><h1>Renewal Co.</h1><p>Certificates and renewals for small firms. Call +1 555 0142 or write to desk@renewal.test.</p></html>",
    });
    // A certificate that runs out in 10 days: the cert_expiring factor's case.
    net.sites.setCertificate(
      "renewal.test",
      await net.pki.issue(["renewal.test"], { notAfter: new Date(Date.now() + 10 * DAY) }),
    );
    net.sites.set("acme.test", {
      body: "<html><h1>Acme Inc.</h1><p>Industrial fasteners and fixings since 1952. Call +1 555 0100 or write to sales@acme.test.</p></html>",
      headers: { "strict-transport-security": "max-age=31536000" },
    });
    rdap = await startRdapServer(
      {
        "acme.test": {
          kind: "registered",
          registeredAt: "2009-03-15T04:00:00Z",
          expiresAt: "2030-03-15T04:00:00Z",
          registrar: "Example Registrar, Inc.",
        },
        "young.test": {
          kind: "registered",
          registeredAt: new Date(Date.now() - 12 * DAY).toISOString(),
          registrar: "Fresh Names LLC",
        },
      },
      await net.pki.issue(["rdap.test"]),
    );
    const bootstrapUrl = rdap.serveBootstrap(["test"]);
    h = await startHarness(
      "sqlite",
      { ...net.env, ...UNLIMITED_RATE_ENV, RDAP_BOOTSTRAP_URL: bootstrapUrl },
      { websiteCa: net.ca, workers: true },
    );
    key = await h.apiKey("acct_intel");
  });
  after(async () => {
    await h?.close();
    await Promise.all([net?.close(), rdap?.close()]);
  });

  it("rates an old, clean company domain with its facts on the lead", { skip }, async () => {
    const res = await call("POST", "/v1/leads", { email: "alice@acme.test", website: "acme.test" });
    assert.equal(res.statusCode, 201, res.body);
    const lead = await settled(res.json().id);
    const factors = codes(lead);
    assert.equal(factors.domain_established, 5);
    for (const bad of ["domain_young", "domain_blocklisted", "no_spf", "no_dmarc", "email_typo"])
      assert.equal(factors[bad], undefined, bad);
    assert.ok(lead.domainAgeDays > 17 * 365);
    assert.equal(lead.domainListed, false);
    assert.equal(lead.didYouMean, null);
    assert.equal(lead.normalizedEmail, "alice@acme.test");
    const facts = lead.domainFacts;
    assert.equal(facts.registration, "registered");
    assert.equal(facts.registrar, "Example Registrar, Inc.");
    assert.equal(facts.registeredAt, "2009-03-15T04:00:00.000Z");
    assert.equal(facts.expiresAt, "2030-03-15T04:00:00.000Z");
    assert.equal(facts.reputation, "clean");
    assert.deepEqual(
      [facts.spf, facts.spfAll, facts.dmarc, facts.dmarcPolicy, facts.nullMx, facts.starttls],
      ["present", "-all", "present", "quarantine", false, false],
    );
    assert.equal(facts.certificate.hsts, true);
    assert.ok(facts.certificate.daysToExpiry > 80);
  });

  it("costs a young, block-listed domain without mail records its points", { skip }, async () => {
    const res = await call("POST", "/v1/leads", { email: "sam@young.test" });
    const lead = await settled(res.json().id);
    const factors = codes(lead);
    assert.equal(factors.domain_young, -15);
    assert.equal(factors.domain_blocklisted, -30);
    assert.equal(factors.no_spf, -3);
    assert.equal(factors.no_dmarc, -2);
    assert.equal(lead.domainAgeDays, 12);
    assert.equal(lead.domainListed, true);
    assert.deepEqual(lead.domainFacts.listings, [
      { zone: "dbl.spamhaus.org", subject: "young.test", meaning: "spam domain" },
    ]);
  });

  it("costs a website certificate that expires within 14 days its points", { skip }, async () => {
    const res = await call("POST", "/v1/leads", { email: "ops@renewal.test", website: "renewal.test" });
    const lead = await settled(res.json().id);
    assert.equal(codes(lead).cert_expiring, -5);
    assert.equal(lead.domainSslValid, true);
    const cert = lead.domainFacts.certificate;
    assert.match(cert.issuer, /leadcheck test root/);
    assert.ok(cert.daysToExpiry >= 9 && cert.daysToExpiry <= 10, `daysToExpiry ${cert.daysToExpiry}`);
    assert.ok(Math.abs(Date.parse(cert.notAfter) - (Date.now() + 10 * DAY)) < DAY);
    const body = (await call("POST", "/v1/check-website", { website: "renewal.test" })).json();
    assert.equal(body.details.certificate.daysToExpiry, cert.daysToExpiry);
  });

  it("suggests a correction for a mistyped free-mail domain and rates it down", { skip }, async () => {
    const res = await call("POST", "/v1/leads", { email: "pat@gmial.com" });
    const lead = await settled(res.json().id);
    assert.equal(lead.didYouMean, "pat@gmail.com");
    assert.equal(codes(lead).email_typo, -20);
  });

  it("filters leads by domain age, listing and typo suggestion", { skip }, async () => {
    const emails = async (query: string) =>
      ((await call("GET", `/v1/leads?${query}`)).json().leads as { email: string }[])
        .map((l) => l.email)
        .sort();
    assert.deepEqual(await emails("maxDomainAgeDays=90"), ["sam@young.test"]);
    assert.deepEqual(await emails("minDomainAgeDays=3650"), ["alice@acme.test"]);
    assert.deepEqual(await emails("domainListed=true"), ["sam@young.test"]);
    // gmial.com does not exist, and is not on the list either.
    assert.deepEqual(await emails("domainListed=false"), [
      "alice@acme.test",
      "ops@renewal.test",
      "pat@gmial.com",
    ]);
    assert.deepEqual(await emails("hasDidYouMean=true"), ["pat@gmial.com"]);
    const bad = await call("GET", "/v1/leads?maxDomainAgeDays=-1");
    assert.equal(bad.statusCode, 422);
    assert.equal(bad.json().error_code, "VALIDATION_ERROR");
  });

  it("asked the registry once per registrable domain across leads and checks", { skip }, async () => {
    assert.deepEqual(
      rdap.queries.filter((q) => q === "acme.test").length,
      1,
      `queries: ${rdap.queries.join(", ")}`,
    );
    await call("POST", "/v1/check-website", { website: "www.acme.test" });
    assert.equal(rdap.queries.filter((q) => q === "acme.test").length, 1);
  });

  it("shows the mail configuration and the domain intelligence in check-email details", {
    skip,
  }, async () => {
    const body = (await call("POST", "/v1/check-email", { email: "alice@acme.test" })).json();
    assert.equal(body.status, "valid");
    assert.equal(body.didYouMean, null);
    assert.deepEqual(body.details.mailConfig.mx, [{ host: "mx.acme.test", priority: 10 }]);
    assert.equal(body.details.mailConfig.spf.all, "-all");
    assert.equal(body.details.mailConfig.dmarc.policy, "quarantine");
    assert.equal(body.details.mailConfig.starttls, false);
    assert.equal(body.details.domainIntel.age.status, "registered");
    assert.equal(body.details.domainIntel.reputation.status, "clean");
    const short = (
      await call("POST", "/v1/check-email", { email: "alice@acme.test", returnDetails: false })
    ).json();
    assert.equal(short.details, undefined);
  });

  it("suggests only for known look-alikes or domains without mail, never for a working lookalike", {
    skip,
  }, async () => {
    const suggestion = async (email: string) =>
      (await call("POST", "/v1/check-email", { email })).json().didYouMean as string | null;
    assert.equal(await suggestion("kim@hotmial.com"), "kim@hotmail.com");
    assert.equal(await suggestion("kim@yahoo.con"), "kim@yahoo.com");
    assert.equal(await suggestion("kim@gmx.co"), null);
  });

  it("shows certificate, HSTS and registration in check-website details", { skip }, async () => {
    const body = (await call("POST", "/v1/check-website", { website: "acme.test" })).json();
    assert.equal(body.status, "active");
    const cert = body.details.certificate;
    assert.match(cert.issuer, /leadcheck test root/);
    assert.ok(Date.parse(cert.notAfter) > Date.now());
    assert.equal(cert.hsts, true);
    assert.equal(body.details.domainIntel.age.registrar, "Example Registrar, Inc.");
    const plain = (await call("POST", "/v1/check-website", { website: "http://broken.test" })).json();
    assert.equal(plain.details.certificate, null);
  });
});
