import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import { emailHashOf, readToken, signToken, type TokenClaims } from "./widget-token.js";

const SECRET = "s".repeat(40);
const claims: TokenClaims = {
  keyId: "key_1",
  accountId: "acct_1",
  emailHash: emailHashOf("Jane@Acme.com "),
  expiresAtMs: 1_000_000,
  checkedAt: "2026-01-01T00:00:00.000Z",
  mode: "live",
  verdict: {
    status: "valid",
    reason: "deliverable",
    didYouMean: null,
    disposable: false,
    role: false,
    free: false,
  },
};

test("a token reads back its claims until it expires, then says expired", () => {
  const token = signToken(SECRET, claims);
  assert.deepEqual(readToken(SECRET, token, 999_999), { kind: "valid", claims });
  assert.equal(readToken(SECRET, token, 1_000_000).kind, "expired");
  assert.equal(claims.emailHash, emailHashOf("jane@acme.com"), "bound to the address, case-insensitively");
  assert.equal(token.includes("jane"), false, "the token never carries the address");
});

test("a changed payload, signature or secret is forged", () => {
  const token = signToken(SECRET, claims);
  const [v, body, sig] = token.split(".");
  const altered = Buffer.from(
    JSON.stringify({ ...claims, verdict: { ...claims.verdict, status: "invalid" } }),
  ).toString("base64url");
  for (const bad of [
    `${v}.${altered}.${sig}`,
    `${v}.${body}.${sig!.slice(0, -2)}AA`,
    "garbage",
    `${v}.${body}`,
    "",
  ])
    assert.equal(readToken(SECRET, bad, 0).kind, "forged", bad);
  assert.equal(readToken("t".repeat(40), token, 0).kind, "forged");
});

test("signs with exactly HMAC-SHA256, for short secrets and secrets longer than a block", () => {
  for (const secret of [SECRET, "k".repeat(100), "ünïcode-secret-of-32-characters-at-least"]) {
    const token = signToken(secret, claims);
    const [version, payload, mac] = token.split(".");
    const expected = createHmac("sha256", secret).update(`${version}.${payload}`).digest("base64url");
    assert.equal(mac, expected, secret);
    assert.equal(readToken(secret, token, 0).kind, "valid");
  }
});
