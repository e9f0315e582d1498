// Infrastructure evidence of the parked verdict against the local DNS server: the name servers,
// addresses and CNAMEs of known parking services (Zirngibl et al. TMA'22, MISP), read from the
// check's own DNS answers, and wildcard DNS asked only for a page that is undecided on its own.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { collectDnsEvidence, hasWildcardDns } from "../../../src/checks/website/dns-evidence.js";
import { evaluateParked, type ParkedInputs } from "../../../src/checks/website/parked.js";
import { loadLexicon } from "../../../src/checks/website/parked-lexicon.js";
import { loadParkingIndicators } from "../../../src/checks/website/parking-indicators.js";
import { WebsiteEngine } from "../../../src/checks/website/website.engine.js";
import { DnsResolver } from "../../../src/net/dns.js";
import { HttpClient } from "../../../src/net/http-client.js";
import { startDnsServer, type TestDnsServer, type Zone } from "../../support/dns-server.js";
import { startSites, type TestSites } from "../../support/http-servers.js";
import { type CorpusPage, readManifest, readPage } from "../../support/parked-corpus.js";
import { createTestPki } from "../../support/test-ca.js";

const LOCAL = { A: ["127.0.0.1"] };
const ZONE: Zone = {
  "ns-parked.test": { ...LOCAL, NS: ["ns1.parkingcrew.net", "ns2.parkingcrew.net"] },
  "dan-ns.test": { ...LOCAL, NS: ["ns1.dan.com", "ns2.dan.com"] },
  "addr-parked.test": { A: ["185.53.177.20"], NS: ["ns1.registrar.test"] },
  "cname-parked.test": { CNAME: "foo.ndparking.com" },
  "foo.ndparking.com": { A: ["185.53.178.9"] },
  "registrar-dns.test": { ...LOCAL, NS: ["dns1.registrar-servers.com"] },
  "live.test": { ...LOCAL, NS: ["ns1.live.test"] },
  "wild.test": LOCAL,
  "*.wild.test": LOCAL,
  "tame.test": LOCAL,
};

const indicators = loadParkingIndicators();
const page = (file: string): string => {
  const row = readManifest().find((p: CorpusPage) => p.file === file);
  assert.ok(row, file);
  return readPage(row);
};
/** A real live page (a news article). */
const LIVE_PAGE = "live/readability-bbc-1.html.gz";
/** Short of the threshold by the rules alone: "reserved" wording on a page with some text. */
const UNDECIDED_PAGE = `<title>Welcome</title><p>This domain is reserved.</p><p>${"lorem ".repeat(80)}</p>`;

describe("parked infrastructure evidence against the local DNS server", () => {
  let dnsServer: TestDnsServer;
  let dns: DnsResolver;
  let sites: TestSites;
  let ca: string;

  before(async () => {
    dnsServer = await startDnsServer(ZONE);
    dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 2_000 });
    const pki = await createTestPki();
    ca = pki.ca.cert;
    sites = await startSites(
      {
        "ns-parked.test": { body: page(LIVE_PAGE) },
        "live.test": { body: page(LIVE_PAGE) },
        "wild.test": { body: UNDECIDED_PAGE },
      },
      { fallback: await pki.issue(["ns-parked.test", "live.test", "wild.test"]) },
    );
  });

  after(async () => {
    dns.close();
    await sites.close();
    await dnsServer.close();
  });

  const judge = async (host: string, body = "") => {
    const facts = await collectDnsEvidence(dns, host);
    const inputs: ParkedInputs = {
      host,
      ...facts,
      chain: [`https://${host}/`],
      headers: {},
      body,
    };
    return { facts, verdict: evaluateParked(inputs, indicators) };
  };

  it("a parking service's name servers decide, even over a live-looking page", async () => {
    for (const host of ["ns-parked.test", "dan-ns.test"]) {
      const { verdict } = await judge(host, page(LIVE_PAGE));
      assert.equal(verdict.isParked, true, host);
      const ns = verdict.evidence.find((e) => e.signal === "ns");
      assert.ok(ns && ns.weight >= 60, JSON.stringify(verdict.evidence));
    }
  });

  it("a parking service's address is corroboration only: 30 points, not a verdict", async () => {
    const { facts, verdict } = await judge("addr-parked.test");
    assert.deepEqual(facts.addresses, ["185.53.177.20"]);
    const address = verdict.evidence.find((e) => e.signal === "address");
    assert.equal(address?.provider, "ParkingCrew");
    assert.equal(address?.weight, 30);
    assert.equal(verdict.isParked, false);
  });

  it("a CNAME into a parking service decides", async () => {
    const { facts, verdict } = await judge("cname-parked.test");
    assert.deepEqual(facts.cnames, ["foo.ndparking.com"]);
    assert.equal(verdict.isParked, true);
    assert.ok(verdict.evidence.some((e) => e.signal === "cname"));
  });

  it("a registrar's default DNS under a live page is not parked", async () => {
    const { verdict } = await judge("registrar-dns.test", page(LIVE_PAGE));
    assert.equal(verdict.isParked, false, JSON.stringify(verdict.evidence));
  });

  it("tells wildcard DNS (any label resolves to the host's address) from a zone that answers NXDOMAIN", async () => {
    assert.equal(await hasWildcardDns(dns, "wild.test", ["127.0.0.1"], "k2j4h5g6f7d8"), true);
    assert.equal(await hasWildcardDns(dns, "tame.test", ["127.0.0.1"], "k2j4h5g6f7d8"), false);
    assert.equal(await hasWildcardDns(dns, "tame.test", [], "k2j4h5g6f7d8"), null);
  });

  it("the engine reuses its own DNS answers: parking NS make a served page parked, a live page with its own NS stays live", async () => {
    const engine = new WebsiteEngine({
      dns,
      client: new HttpClient({
        dns,
        allowPrivateTargets: true,
        httpPort: sites.httpPort,
        httpsPort: sites.httpsPort,
        ca,
      }),
      firstTryTimeoutMs: 3_000,
      retryTimeoutMs: 3_000,
      fallbackTimeoutMs: 3_000,
      totalDeadlineMs: 10_000,
    });
    const parked = await engine.check("http://ns-parked.test/");
    assert.equal(parked.isParked, true);
    assert.ok(parked.details.parked.evidence.some((e) => e.signal === "ns" && e.provider === "ParkingCrew"));
    const before = dnsServer.queries.length;
    const live = await engine.check("http://live.test/");
    assert.equal(live.isParked, false, JSON.stringify(live.details.parked.evidence));
    assert.equal(live.details.parked.randomPath, null, "a page decided on its own asks no random path");
    const asked = dnsServer.queries.slice(before);
    assert.ok(!asked.some((q) => /^A [a-z0-9]{12}\.live\.test$/.test(q)), "and no wildcard lookup");
  });

  it("the engine asks a random path and a random subdomain only for an undecided page, and counts wildcard DNS", async () => {
    const engine = new WebsiteEngine({
      dns,
      client: new HttpClient({
        dns,
        allowPrivateTargets: true,
        httpPort: sites.httpPort,
        httpsPort: sites.httpsPort,
        ca,
      }),
      firstTryTimeoutMs: 3_000,
      retryTimeoutMs: 3_000,
      fallbackTimeoutMs: 3_000,
      totalDeadlineMs: 10_000,
      random: () => 0,
      parkedDetector: { model: null, lexicon: loadLexicon() },
    });
    const before = dnsServer.queries.length;
    const r = await engine.check("http://wild.test/");
    assert.ok(
      dnsServer.queries.slice(before).includes("A aaaaaaaaaaaa.wild.test"),
      "a random label was resolved",
    );
    assert.deepEqual(r.details.parked.randomPath, { url: "http://wild.test/aaaaaaaaaaaa", samePage: true });
    const signals = r.details.parked.evidence.map((e) => e.signal);
    assert.ok(signals.includes("wildcard_dns") && signals.includes("random_path"), signals.join());
    assert.equal(r.isParked, true);
  });

  it("wildcard DNS adds 10 points to an undecided page", () => {
    const lexicon = loadLexicon();
    const undecided: ParkedInputs = {
      host: "wild.test",
      nameServers: [],
      cnames: [],
      addresses: ["127.0.0.1"],
      forSaleTxt: [],
      chain: ["https://wild.test/"],
      headers: {},
      body: "<title>Welcome</title><p>This domain is reserved.</p>",
    };
    const rules = { model: null, lexicon };
    const alone = evaluateParked(undecided, indicators, rules);
    const withWildcard = evaluateParked({ ...undecided, wildcardDns: true }, indicators, rules);
    assert.ok(withWildcard.evidence.some((e) => e.signal === "wildcard_dns"));
    assert.equal(withWildcard.score, alone.score + 10);
  });
});
