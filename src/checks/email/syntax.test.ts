import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type EmailSyntaxReason, parseEmail } from "./syntax.js";

const VALID: [string, string][] = [
  ["john.doe@example.com", "john.doe@example.com"],
  ["  John.Doe@Example.COM ", "John.Doe@example.com"],
  ["user+tag@sub.example.co.uk", "user+tag@sub.example.co.uk"],
  ["o'brien@example.ie", "o'brien@example.ie"],
  ["x@münchen.de", "x@xn--mnchen-3ya.de"],
  ["info@例え.jp", "info@xn--r8jz45g.jp"],
  [`${"a".repeat(64)}@example.com`, `${"a".repeat(64)}@example.com`],
  ["a_b-c=d!#$%&*/?^`{|}~@example.org", "a_b-c=d!#$%&*/?^`{|}~@example.org"],
];

const INVALID: [string, EmailSyntaxReason][] = [
  ["", "empty"],
  ["   ", "empty"],
  ["plainaddress", "missing_at"],
  ["@example.com", "local_empty"],
  ["user@", "domain_empty"],
  [".user@example.com", "local_invalid"],
  ["user.@example.com", "local_invalid"],
  ["us..er@example.com", "local_invalid"],
  ["us er@example.com", "local_invalid"],
  ["a@b@example.com", "local_invalid"],
  ["John <john@example.com>", "local_invalid"],
  [`${"a".repeat(65)}@example.com`, "local_too_long"],
  ['"quoted"@example.com', "quoted_local_unsupported"],
  ["jörg@example.com", "non_ascii_local_unsupported"],
  ["user@[192.0.2.1]", "domain_literal_unsupported"],
  ["user@localhost", "domain_invalid"],
  ["user@example..com", "domain_invalid"],
  ["user@-example.com", "domain_invalid"],
  ["user@example.com.", "domain_invalid"],
  ["user@exa mple.com", "domain_invalid"],
  ["user@example.123", "domain_invalid"],
  [`user@${"a".repeat(64)}.com`, "domain_invalid"],
  [`user@${Array.from({ length: 50 }, () => "abcdef").join(".")}.com`, "domain_too_long"],
  [`${"a".repeat(60)}@${Array.from({ length: 39 }, () => "abcde").join(".")}.com`, "too_long"],
];

describe("parseEmail", () => {
  for (const [input, expected] of VALID) {
    it(`accepts ${JSON.stringify(input).slice(0, 60)} as ${expected.slice(0, 60)}`, () => {
      const r = parseEmail(input);
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.email, expected);
    });
  }
  for (const [input, reason] of INVALID) {
    it(`refuses ${JSON.stringify(input).slice(0, 60)} with ${reason}`, () => {
      const r = parseEmail(input);
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.reason, reason);
      assert.ok(!r.ok && r.message.length > 0);
    });
  }
  it("keeps the address within 254 octets", () => {
    const r = parseEmail(`${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}.com`);
    assert.equal(r.ok, false);
  });
});

describe("syntax messages name the offending character", () => {
  it("says what is wrong, not only that something is", () => {
    for (const [input, message] of [
      ["jane doe@example.com", "the local part contains a space"],
      ["jane,doe@example.com", "the local part contains a comma (,)"],
      ["a@b@example.com", 'the local part contains a second "@"'],
      ["John <john@example.com>", "the local part contains a space"],
      ["john<x@example.com", 'the local part contains "<"'],
      ["us..er@example.com", "the local part has two dots in a row"],
      [".user@example.com", "the local part starts with a dot"],
      ["user@exa mple.com", "the domain contains a space"],
      ["user@example,com", "the domain contains a comma (,)"],
      ["user@example.com.", "the domain ends with a dot"],
    ] as const) {
      const parsed = parseEmail(input);
      assert.equal(parsed.ok, false, input);
      if (!parsed.ok) assert.equal(parsed.message, message, input);
    }
  });
});
