import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readZoneCodes } from "./dnsbl.js";
import { spfAll } from "./mail-auth.js";
import { loadBootstrapFile, RdapBootstrap } from "./rdap-bootstrap.js";

describe("readZoneCodes", () => {
  const cases: [zone: string, codes: string[], status: string][] = [
    ["dbl.spamhaus.org", ["127.0.1.2"], "listed"],
    ["dbl.spamhaus.org", ["127.255.255.252"], "unknown"],
    ["dbl.spamhaus.org", ["127.255.255.254"], "unknown"],
    ["dbl.spamhaus.org", ["127.255.255.255"], "unknown"],
    ["dbl.spamhaus.org", ["127.0.1.255"], "unknown"],
    ["zen.spamhaus.org", ["127.0.0.2"], "listed"],
    ["zen.spamhaus.org", ["127.0.0.10", "127.0.0.4"], "listed"],
    ["key123.zen.dq.spamhaus.net", ["127.0.0.4"], "listed"],
    ["key123.zen.dq.spamhaus.net", ["127.255.255.254"], "unknown"],
    ["multi.surbl.org", ["127.0.0.1"], "unknown"],
    ["multi.surbl.org", ["127.0.0.16"], "listed"],
    ["multi.uribl.com", ["127.0.0.1"], "unknown"],
    ["multi.uribl.com", ["127.0.0.2"], "listed"],
    ["bl.spamcop.net", ["127.0.0.2"], "listed"],
    // 127.255.255.0/24 is the error range of the large lists, in a zone we have no table for too
    ["bl.example.test", ["127.255.255.254"], "unknown"],
    ["bl.example.test", ["127.255.255.1"], "unknown"],
    ["bl.example.test", ["127.255.255.255", "127.0.0.3"], "listed"],
    // A resolver that rewrites NXDOMAIN to an advertising address is not a listing
    ["bl.spamcop.net", ["198.51.100.7"], "unknown"],
    ["dbl.spamhaus.org", [], "not_listed"],
  ];
  for (const [zone, codes, status] of cases) {
    it(`${zone} ${codes.join(",") || "(none)"} -> ${status}`, () => {
      assert.equal(readZoneCodes(zone, codes).status, status);
    });
  }
});

describe("spfAll", () => {
  const cases: [record: string, all: string | null][] = [
    ["v=spf1 include:_spf.google.com ~all", "~all"],
    ["v=spf1 mx -all", "-all"],
    ["v=spf1 all", "+all"],
    ["v=spf1 ?all", "?all"],
    ["v=spf1 include:x.example redirect=_spf.example", null],
  ];
  for (const [record, all] of cases) it(`${record} -> ${all}`, () => assert.equal(spfAll(record), all));
});

describe("RdapBootstrap", () => {
  it("loads the vendored IANA snapshot and finds registries by TLD", () => {
    const vendored = loadBootstrapFile();
    assert.equal(vendored.publication, "2026-01-30T00:00:01Z");
    assert.deepEqual(vendored.serversFor("www.example.com"), ["https://rdap.verisign.com/com/v1/"]);
    assert.deepEqual(vendored.serversFor("example.org"), ["https://rdap.publicinterestregistry.org/rdap/"]);
    assert.deepEqual(vendored.serversFor("example.nordap"), []);
  });

  it("prefers the longest matching label sequence and https URLs", () => {
    const b = new RdapBootstrap({
      publication: "x",
      services: [
        [["uk"], ["https://uk.example/"]],
        [["co.uk"], ["http://plain.example/", "https://couk.example"]],
      ],
    });
    assert.deepEqual(b.serversFor("shop.acme.co.uk"), ["https://couk.example/", "http://plain.example/"]);
    assert.deepEqual(b.serversFor("acme.uk"), ["https://uk.example/"]);
  });
});
