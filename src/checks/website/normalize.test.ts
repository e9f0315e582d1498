import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeWebsite } from "./normalize.js";

describe("normalizeWebsite", () => {
  const accepted: [string, string, boolean][] = [
    ["example.com", "https://example.com/", false],
    ["  Example.COM  ", "https://example.com/", false],
    ["example.com.", "https://example.com/", false],
    ["http://example.com", "http://example.com/", true],
    ["HTTPS://example.com/path?q=1#frag", "https://example.com/path?q=1", true],
    ["//example.com/a", "https://example.com/a", false],
    ["example.com:8443/x", "https://example.com:8443/x", false],
    ["https://example.com:443/", "https://example.com/", true],
    ["bücher.de", "https://xn--bcher-kva.de/", false],
    ["xn--bcher-kva.de", "https://xn--bcher-kva.de/", false],
    ["www.münchen.de/über", "https://www.xn--mnchen-3ya.de/%C3%BCber", false],
    ["sub_domain.example.com", "https://sub_domain.example.com/", false],
    ["93.184.216.34", "https://93.184.216.34/", false],
    ["http://[2606:4700::1]/", "http://[2606:4700::1]/", true],
  ];
  for (const [input, url, hadScheme] of accepted) {
    it(`accepts ${JSON.stringify(input)} as ${url}`, () => {
      const r = normalizeWebsite(input);
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.url, url);
      assert.equal(r.hadScheme, hadScheme);
    });
  }

  const rejected: [string, string][] = [
    ["", "empty"],
    ["   ", "empty"],
    [`${"a".repeat(260)}.com`, "too_long"],
    ["exa mple.com", "whitespace"],
    ["example.com\nx", "whitespace"],
    ["example.com\u0000x", "whitespace"],
    ["ftp://example.com", "bad_scheme"],
    ["javascript:alert(1)", "bad_scheme"],
    ["mailto:someone@example.com", "bad_scheme"],
    ["file:///etc/passwd", "bad_scheme"],
    ["http://user:pass@example.com", "credentials"],
    ["user@example.com", "credentials"],
    ["http://127.1.1.1:80@127.2.2.2:80", "credentials"],
    ["example.com:99999", "bad_port"],
    ["example.com:0", "bad_port"],
    ["http://localhost:+11211aaa", "bad_port"],
    ["example.com:abc", "bad_port"],
    ["localhost", "no_dot"],
    ["intranet/", "no_dot"],
    ["-bad-.com", "invalid_host"],
    ["exa!mple.com", "invalid_host"],
    ["localhost:abc", "bad_scheme"],
    ["http://425.510.425.510", "invalid_url"],
    ["example.123", "invalid_url"],
    [`${"a".repeat(64)}.com`, "invalid_host"],
    ["http://", "invalid_url"],
  ];
  for (const [input, reason] of rejected) {
    it(`rejects ${JSON.stringify(input.slice(0, 40))} as ${reason}`, () => {
      const r = normalizeWebsite(input);
      assert.ok(!r.ok, JSON.stringify(r));
      assert.equal(r.reason, reason);
      assert.ok(r.message.length > 0);
    });
  }
});
