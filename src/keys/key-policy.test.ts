import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cidrProblem, ipAllowed, originAllowed, originProblem, requestOrigin } from "./key-policy.js";

describe("key policy rules", () => {
  it("accepts IPv4 and IPv6 addresses and CIDR blocks, and names what is wrong with others", () => {
    for (const good of [
      "203.0.113.7",
      "203.0.113.0/24",
      "0.0.0.0/0",
      "2001:db8::/32",
      "::1",
      "2001:db8::1/128",
    ])
      assert.equal(cidrProblem(good), null, good);
    for (const bad of [
      "203.0.113.0/33",
      "2001:db8::/129",
      "example.com",
      "1.2.3/8",
      "10.0.0.0/8/1",
      "10.0.0.0/x",
      "",
    ])
      assert.ok(cidrProblem(bad), bad);
  });

  const table: [string[] | null, string, boolean][] = [
    [null, "198.51.100.1", true],
    [["203.0.113.0/24"], "203.0.113.200", true],
    [["203.0.113.0/24"], "203.0.114.1", false],
    [["203.0.113.7"], "203.0.113.7", true],
    [["203.0.113.7"], "203.0.113.8", false],
    [["203.0.113.0/24"], "::ffff:203.0.113.9", true],
    [["2001:db8::/32"], "2001:db8:1::5", true],
    [["2001:db8::/32"], "2001:db9::5", false],
    [["2001:db8::/32", "127.0.0.1"], "127.0.0.1", true],
    [["2001:db8::/32"], "not-an-ip", false],
  ];
  for (const [allowed, ip, expected] of table) {
    it(`${expected ? "allows" : "refuses"} ${ip} for ${JSON.stringify(allowed)}`, () => {
      assert.equal(ipAllowed(allowed, ip), expected);
    });
  }

  it("takes exact origins and one wildcard level; local origins only in test mode", () => {
    for (const good of [
      "https://www.acme.com",
      "https://*.acme.com",
      "http://shop.acme.com:8080",
      "https://acme.co.uk",
    ])
      assert.equal(originProblem(good, "live"), null, good);
    for (const bad of [
      "https://www.acme.com/signup",
      "acme.com",
      "ftp://acme.com",
      "https://*.com",
      "https://*.*.acme.com",
      "https://a..b.com",
      "http://localhost:3000",
      "http://127.0.0.1:8080",
    ])
      assert.ok(originProblem(bad, "live"), bad);
    assert.equal(originProblem("http://localhost:3000", "test"), null);
  });

  const origins: [string, boolean][] = [
    ["https://www.acme.com", true],
    ["https://WWW.acme.com", true],
    ["https://shop.acme.com", true],
    ["https://a.b.acme.com", false],
    ["https://acme.com", false],
    ["http://shop.acme.com", false],
    ["https://shop.acme.com:8443", false],
    ["https://evilacme.com", false],
    ["https://www.acme.com.evil.com", false],
  ];
  for (const [origin, expected] of origins) {
    it(`${expected ? "matches" : "does not match"} ${origin}`, () => {
      assert.equal(originAllowed(["https://www.acme.com", "https://*.acme.com"], origin), expected);
    });
  }

  it("reads the origin from Origin, else from Referer", () => {
    assert.equal(requestOrigin("https://a.com", "https://b.com/x"), "https://a.com");
    assert.equal(requestOrigin(undefined, "https://b.com:8443/signup?x=1"), "https://b.com:8443");
    assert.equal(requestOrigin("null", undefined), null);
    assert.equal(requestOrigin(undefined, "javascript:alert(1)"), null);
    assert.equal(requestOrigin(undefined, undefined), null);
  });
});
