import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evaluateParked, type ParkedInputs } from "./parked.js";
import { loadLexicon } from "./parked-lexicon.js";
import { loadParkingIndicators, parseParkingIndicators } from "./parking-indicators.js";

const indicators = loadParkingIndicators();
// These cases pin the hand-written rules (model null); the combined detector is tested on real
// pages in parked-evidence.test.ts and measured leave-one-source-out by eval:parked.
const RULES = { model: null, lexicon: loadLexicon() };

const inputs = (over: Partial<ParkedInputs> = {}): ParkedInputs => ({
  host: "example.com",
  nameServers: [],
  cnames: [],
  addresses: [],
  forSaleTxt: [],
  chain: ["https://example.com/"],
  headers: {},
  body: "",
  ...over,
});

describe("evaluateParked", () => {
  it("loads every indicator row of the bundled data file", () => {
    assert.ok(indicators.size >= 300, `only ${indicators.size} rows`);
  });

  const cases: [string, Partial<ParkedInputs>, boolean, string[]][] = [
    ["a plain business site is not parked", { body: "<h1>Welcome to Acme Plumbing</h1>" }, false, []],
    [
      "a parking provider's name servers decide alone",
      { nameServers: ["ns1.parkingcrew.net"] },
      true,
      ["ns"],
    ],
    ["a parking CNAME decides alone", { cnames: ["foo.ndparking.com"] }, true, ["cname"]],
    [
      "a redirect to a domain marketplace decides alone",
      { chain: ["https://example.com/", "https://www.afternic.com/forsale/example.com"] },
      true,
      ["redirect"],
    ],
    [
      "a provider page marker decides alone (seen both in the markup and as a script host)",
      { body: '<script src="//www.google.com/adsense/domains/caf.js"></script>' },
      true,
      ["page", "script", "thin_page"],
    ],
    [
      "registrar default DNS alone is not evidence enough",
      { nameServers: ["dns1.registrar-servers.com"] },
      false,
      ["ns"],
    ],
    [
      "weak generic phrases alone are not parked",
      { body: "<p>Related searches: web hosting. Search the web.</p>" },
      false,
      ["page"],
    ],
    [
      "a short page whose whole message is 'buy this domain' is parked",
      { body: "<p>Buy this domain. Related searches: web hosting</p>" },
      true,
      ["page", "text", "thin_page"],
    ],
    [
      "registrar DNS with a weak phrase is still not parked",
      { body: "<p>search the web</p>", nameServers: ["dns1.registrar-servers.com"] },
      false,
      ["ns", "page"],
    ],
    [
      "a _for-sale TXT record alone is not enough",
      { forSaleTxt: ["v=FORSALE1;fcod=NLFS-123"] },
      false,
      ["txt"],
    ],
    [
      "a _for-sale TXT record with a for-sale page is parked",
      { forSaleTxt: ["v=FORSALE1;"], body: "This domain is for sale!" },
      true,
      ["page", "text", "thin_page", "txt"],
    ],
    [
      "a medium page marker with the GoDaddy lander path is parked",
      { chain: ["https://example.com/", "https://example.com/lander"], body: "this domain is parked" },
      true,
      ["page", "text", "thin_page", "url"],
    ],
    ["a _for-sale TXT without the version tag is ignored", { forSaleTxt: ["hello"] }, false, []],
  ];
  for (const [name, over, parked, signals] of cases) {
    it(name, () => {
      const verdict = evaluateParked(inputs(over), indicators, RULES);
      assert.equal(verdict.isParked, parked, JSON.stringify(verdict.evidence));
      assert.deepEqual([...new Set(verdict.evidence.map((e) => e.signal))].sort(), signals);
      assert.equal(verdict.isParked, verdict.score >= verdict.threshold);
      for (const e of verdict.evidence)
        assert.ok(e.source.length > 0, "every piece of evidence names its source");
    });
  }

  it("flags a bot challenge without calling it parked", () => {
    const verdict = evaluateParked(inputs({ headers: { "cf-mitigated": "challenge" } }), indicators, RULES);
    assert.equal(verdict.botProtection, true);
    assert.equal(verdict.isParked, false);
  });

  it("counts parking address ranges as corroboration only", () => {
    const verdict = evaluateParked(inputs({ addresses: ["185.53.177.10"] }), indicators, RULES);
    assert.equal(verdict.isParked, false);
    assert.equal(verdict.evidence[0]?.signal, "address");
  });

  it("matches globs, suffixes, CIDRs and regexes from a custom file", () => {
    const custom = parseParkingIndicators(
      [
        "kind\tmatch\tpattern\tprovider\ttype\tstrength\tsource\tnote",
        "ns\tglob\tns*.park.test\tP\tparking\tstrong\tunit\t",
        "ipv6_cidr\texact\t2001:db8:1::/48\tP\tparking\tstrong\tunit\t",
        "redirect_host\tsuffix\tmarket.test\tM\tmarketplace\tstrong\tunit\t",
      ].join("\n"),
    );
    assert.ok(evaluateParked(inputs({ nameServers: ["ns7.park.test"] }), custom, RULES).isParked);
    assert.ok(!evaluateParked(inputs({ nameServers: ["dns.park.test"] }), custom, RULES).isParked);
    assert.equal(evaluateParked(inputs({ addresses: ["2001:db8:1::5"] }), custom, RULES).score, 30);
    assert.ok(
      evaluateParked(inputs({ chain: ["https://example.com/", "https://x.market.test/"] }), custom, RULES)
        .isParked,
    );
  });
});
