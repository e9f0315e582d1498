import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  keyTypeOf,
  partialKey,
  sameHash,
} from "./key-format.js";

describe("API key format", () => {
  it("generates sk_ plus 40 alphanumerics, 43 characters in all", () => {
    for (let i = 0; i < 50; i++) {
      const key = generateApiKey();
      assert.equal(key.length, 43);
      assert.match(key, /^sk_[A-Za-z0-9]{40}$/);
      assert.ok(isWellFormedApiKey(key));
    }
  });

  it("rejects keys of the wrong shape", () => {
    for (const bad of [
      "",
      "sk_",
      "xk_" + "a".repeat(40),
      "pk_" + "a".repeat(39),
      "sk_" + "a".repeat(39),
      "sk_" + "a".repeat(41),
      "sk_" + "-".repeat(40),
    ]) {
      assert.equal(isWellFormedApiKey(bad), false, bad);
    }
  });

  it("generates pk_ plus 40 alphanumerics for publishable keys, told apart by their prefix", () => {
    const key = generateApiKey(undefined, "publishable");
    assert.match(key, /^pk_[A-Za-z0-9]{40}$/);
    assert.ok(isWellFormedApiKey(key));
    assert.equal(keyTypeOf(key), "publishable");
    assert.equal(keyTypeOf(generateApiKey()), "secret");
    assert.equal(partialKey("WXYZ", "publishable"), "pk_...WXYZ");
  });

  it("hashes with SHA-256 and compares digests", () => {
    const h = hashApiKey("sk_test");
    assert.equal(h.length, 64);
    assert.ok(sameHash(h, hashApiKey("sk_test")));
    assert.equal(sameHash(h, hashApiKey("sk_tesT")), false);
    assert.equal(sameHash(h, "abcd"), false);
  });

  it("shows only the last four characters in the partial key", () => {
    assert.equal(partialKey("WXYZ"), "sk_...WXYZ");
  });
});
