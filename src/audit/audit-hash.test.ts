import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalJson, entryHash, GENESIS_HASH, redactSecrets } from "./audit-hash.js";

const base = {
  id: "aud_1",
  account_id: "acct_1",
  seq: 1,
  actor_kind: "member",
  actor_id: "acct_1",
  action: "key.created",
  target_kind: "key",
  target_id: "key_1",
  ip: "127.0.0.1",
  user_agent: "test",
  details: canonicalJson({ name: "ci" }),
  created_at: "2026-01-01T00:00:00.000Z",
  prev_hash: GENESIS_HASH,
};

describe("audit hash", () => {
  it("encodes objects the same whatever their key order", () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: 2, c: [3, { f: 4, e: 5 }] } }),
      canonicalJson({ a: { c: [3, { e: 5, f: 4 }], d: 2 }, b: 1 }),
    );
  });

  it("changes when any field changes, the previous hash included", () => {
    const original = entryHash(base);
    for (const [field, value] of Object.entries({
      id: "aud_2",
      seq: 2,
      actor_id: "key_9",
      action: "key.revoked",
      target_id: "key_2",
      ip: null,
      user_agent: "other",
      details: canonicalJson({ name: "cd" }),
      created_at: "2026-01-01T00:00:00.001Z",
      prev_hash: "1".repeat(64),
    })) {
      assert.notEqual(entryHash({ ...base, [field]: value }), original, field);
    }
  });
});

describe("audit details never hold secrets", () => {
  it("redacts fields named like secrets and values shaped like our secrets, at any depth", () => {
    const redacted = redactSecrets({
      name: "ci",
      secret: "whsec_abc",
      nested: { api_key: "x", list: ["sk_0123456789012345678901234567890123456789", "fine"] },
      token: "abc",
      note: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig",
      Authorization: "Bearer x",
    });
    assert.deepEqual(redacted, {
      name: "ci",
      secret: "[redacted]",
      nested: { api_key: "[redacted]", list: ["[redacted]", "fine"] },
      token: "[redacted]",
      note: "[redacted]",
      Authorization: "[redacted]",
    });
  });
});
