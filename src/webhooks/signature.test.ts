import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newWebhookSecret, signPayload, verifySignature } from "./signature.js";

describe("webhook signatures", () => {
  it("matches GitHub's published X-Hub-Signature-256 example", () => {
    const secret = "It's a Secret to Everybody";
    const expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    assert.equal(signPayload(secret, "Hello, World!"), expected);
    assert.equal(verifySignature(secret, "Hello, World!", expected), true);
  });

  const secret = "whsec_test";
  const body = '{"event":"lead.created","leadId":"lead_1"}';
  const good = signPayload(secret, body);
  const cases: [string, string, string | undefined, boolean][] = [
    ["the exact signature", body, good, true],
    ["upper-case hex", body, good.toUpperCase().replace("SHA256=", "sha256="), true],
    ["surrounding whitespace", body, ` ${good} `, true],
    ["a changed body", `${body} `, good, false],
    ["another secret's signature", body, signPayload("whsec_other", body), false],
    ["a missing header", body, undefined, false],
    ["an empty header", body, "", false],
    ["the hex without its prefix", body, good.slice("sha256=".length), false],
    ["a truncated signature", body, good.slice(0, -1), false],
    ["a sha1 signature", body, `sha1=${good.slice(7, 47)}`, false],
  ];
  for (const [label, sentBody, header, accepted] of cases) {
    it(`${accepted ? "accepts" : "refuses"} ${label}`, () => {
      assert.equal(verifySignature(secret, sentBody, header), accepted);
    });
  }

  it("signs the bytes, so a Buffer and its string agree", () => {
    const text = '{"name":"Zoë"}';
    assert.equal(signPayload(secret, Buffer.from(text)), signPayload(secret, text));
  });

  it("creates whsec_ secrets with 256 random bits, never the same twice", () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    assert.match(a, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a, b);
  });
});
