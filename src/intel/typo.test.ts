import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { editDistance, suggestDomain } from "./typo.js";

describe("suggestDomain", () => {
  const cases: [domain: string, hasMailRoute: boolean, expected: string | null][] = [
    // Misspelt popular mail domains without a mail route
    ["gmial.com", false, "gmail.com"],
    ["hotmial.com", false, "hotmail.com"],
    ["yahoo.con", false, "yahoo.com"],
    ["outlok.com", false, "outlook.com"],
    ["gmai.com", false, "gmail.com"],
    ["hotmaill.con", false, "hotmail.com"],
    // Known look-alikes are corrected even when they accept mail
    ["gmail.co", true, "gmail.com"],
    ["gmial.com", true, "gmail.com"],
    ["yahoo.con", true, "yahoo.com"],
    // TLD slips on company domains without a mail route
    ["acme.con", false, "acme.com"],
    ["company.cmo", false, "company.com"],
    ["shop.acme.ocm", false, "shop.acme.com"],
    // False-positive guard: working domains close to popular ones are left alone
    ["me.co", true, null],
    ["gmx.co", true, null],
    ["acme.com", true, null],
    // ... and so are real suffixes and different names without mail
    ["acme.com", false, null],
    ["acme.io", false, null],
    ["acme.co", false, null],
    ["ail.com", false, null],
    // Popular domains themselves
    ["gmail.com", false, null],
    ["gmx.de", false, null],
  ];
  for (const [domain, hasMailRoute, expected] of cases) {
    it(`${domain} (${hasMailRoute ? "mail route" : "no mail route"}) -> ${expected ?? "no suggestion"}`, () => {
      assert.equal(suggestDomain(domain, hasMailRoute), expected);
    });
  }
});

describe("editDistance", () => {
  it("counts an adjacent transposition as one edit", () => {
    assert.equal(editDistance("gmial", "gmail"), 1);
    assert.equal(editDistance("con", "com"), 1);
    assert.equal(editDistance("cmo", "com"), 1);
    assert.equal(editDistance("", "abc"), 3);
  });
});
