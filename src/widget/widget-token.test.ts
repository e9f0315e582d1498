import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import {
  emailHashOf,
  readToken,
  signToken as signClaimsToSign,
  signJsonToken,
  type TokenClaims,
} from "./widget-token.js";

/** signToken with checkedAt given as the ISO string it reads back as. */
const signToken = (secret: string, { checkedAt, ...rest }: TokenClaims) =>
  signClaimsToSign(secret, { ...rest, checkedAtMs: Date.parse(checkedAt) });

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

test("signs lcw2, reads back every verdict shape, and is shorter than the JSON token", () => {
  const variants: TokenClaims[] = [
    claims,
    { ...claims, mode: "test", verdict: { ...claims.verdict, disposable: null, role: null, free: null } },
    {
      ...claims,
      keyId: "key_ünïcode",
      verdict: {
        status: "risky",
        reason: "typo",
        didYouMean: "jane@gmail.com",
        disposable: true,
        role: true,
        free: true,
      },
    },
    { ...claims, verdict: { ...claims.verdict, status: "unknown", reason: "deadline", didYouMean: "" } },
    { ...claims, expiresAtMs: Date.UTC(2030, 0, 1), checkedAt: "2029-12-31T23:45:00.123Z" },
  ];
  for (const variant of variants) {
    const token = signToken(SECRET, variant);
    assert.ok(token.startsWith("lcw2."), token);
    assert.deepEqual(readToken(SECRET, token, 0), { kind: "valid", claims: variant });
    assert.ok(token.length < signJsonToken(SECRET, variant).length);
  }
});

test("still reads lcw1 (JSON) tokens, signed before lcw2, for their whole life", () => {
  const token = signJsonToken(SECRET, claims);
  assert.ok(token.startsWith("lcw1."));
  assert.deepEqual(readToken(SECRET, token, 999_999), { kind: "valid", claims });
  assert.equal(readToken(SECRET, token, 1_000_000).kind, "expired");
  const [, body, sig] = token.split(".");
  assert.equal(readToken(SECRET, `lcw2.${body}.${sig}`, 0).kind, "forged", "the version is signed too");
  assert.equal(readToken(SECRET, `lcw3.${body}.${sig}`, 0).kind, "forged");
});

test("an altered lcw2 payload is forged, and a well-signed malformed one is too", () => {
  const token = signToken(SECRET, claims);
  const [v, body, sig] = token.split(".");
  const bytes = Buffer.from(body!, "base64url");
  bytes[1] = 2; // status: valid -> risky
  assert.equal(readToken(SECRET, `${v}.${bytes.toString("base64url")}.${sig}`, 0).kind, "forged");
  // Signed with the right secret but not an lcw2 payload (cannot come from signToken).
  for (const payload of [Buffer.alloc(3), Buffer.alloc(60, 0xff)]) {
    const forgedBody = `lcw2.${payload.toString("base64url")}`;
    const mac = createHmac("sha256", SECRET).update(forgedBody).digest("base64url");
    assert.equal(readToken(SECRET, `${forgedBody}.${mac}`, 0).kind, "forged");
  }
});
