import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canHaveAliases, normalizeEmailAddress } from "./normalized-email.js";

describe("normalizeEmailAddress", () => {
  const cases: [input: string, expected: string][] = [
    ["J.Doe+crm@gmail.com", "jdoe@gmail.com"],
    ["jdoe@googlemail.com", "jdoe@gmail.com"],
    ["j.d.o.e@GoogleMail.com", "jdoe@gmail.com"],
    ["jane+news@outlook.com", "jane@outlook.com"],
    ["jane+x@hotmail.co.uk", "jane@hotmail.co.uk"],
    ["jane+x@icloud.com", "jane@icloud.com"],
    ["jane+x@proton.me", "jane@proton.me"],
    ["jane+x@fastmail.com", "jane@fastmail.com"],
    // Dots are only Gmail's to ignore
    ["j.doe+x@outlook.com", "j.doe@outlook.com"],
    // Yahoo's "-keyword" addresses are real, separate mailboxes
    ["jane-shop@yahoo.com", "jane-shop@yahoo.com"],
    ["jane+x@yahoo.com", "jane+x@yahoo.com"],
    // Company domains: only lower-cased, "+" and "." may be significant there
    ["J.Doe+Sales@Acme.com", "j.doe+sales@acme.com"],
    // A local part that is only a tag stays whole
    ["+tag@gmail.com", "+tag@gmail.com"],
    // IDN domains in their ASCII form
    ["info@bücher.de", "info@xn--bcher-kva.de"],
  ];
  for (const [input, expected] of cases) {
    it(`${input} -> ${expected}`, () => assert.equal(normalizeEmailAddress(input), expected));
  }
});

describe("canHaveAliases", () => {
  it("is true where a provider folds aliases or the domain is an IDN", () => {
    for (const email of [
      "J.Doe+crm@gmail.com",
      "jane+x@outlook.com",
      "a@pm.me",
      "info@bücher.de",
      "x@mail.xn--p1ai",
    ])
      assert.equal(canHaveAliases(normalizeEmailAddress(email)), true, email);
  });

  it("is false elsewhere, where the normalized address is the lower-cased address itself", () => {
    for (const email of [
      "J.Doe+Sales@Acme.com",
      "jane-shop@yahoo.com",
      "jane+x@yahoo.com",
      "bob@sub.example.org",
    ]) {
      const normalized = normalizeEmailAddress(email);
      assert.equal(canHaveAliases(normalized), false, email);
      // So the exact-address unique index (account, email_lower) is all the duplicate check needs.
      assert.equal(normalized, email.toLowerCase());
    }
  });
});
