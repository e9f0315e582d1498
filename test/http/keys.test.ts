import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness } from "../support/harness.js";

for (const kind of dialects()) {
  describe(`API keys (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    before(async () => {
      if (!skip) h = await startHarness(kind);
    });
    after(async () => h?.close());

    it("creates a key with a JWT, lists only its partial form, and refuses it right after DELETE", {
      skip,
    }, async () => {
      const auth = { authorization: `Bearer ${await h.token("user_keys")}` };
      const created = await h.app.inject({
        method: "POST",
        url: "/v1/auth/keys",
        headers: auth,
        payload: { name: "crm sync", description: "nightly job" },
      });
      assert.equal(created.statusCode, 201);
      const body = created.json();
      assert.match(body.api_key, /^sk_[A-Za-z0-9]{40}$/);
      assert.match(body.key_id, /^key_[0-9a-z]{26}$/);
      assert.equal(body.name, "crm sync");
      assert.ok(body.message);

      const used = await h.app.inject({
        method: "GET",
        url: "/v1/credits",
        headers: { "x-api-key": body.api_key },
      });
      assert.equal(used.statusCode, 200);
      assert.equal(used.json().userId, "user_keys");

      const list = await h.app.inject({ method: "GET", url: "/v1/auth/keys", headers: auth });
      assert.equal(list.statusCode, 200);
      const [summary] = list.json().keys;
      assert.equal(summary.key_id, body.key_id);
      assert.equal(summary.partial_key, `sk_...${body.api_key.slice(-4)}`);
      assert.equal(JSON.stringify(list.json()).includes(body.api_key), false, "full key never listed");
      assert.ok(summary.last_used, "last_used set after use");

      const del = await h.app.inject({
        method: "DELETE",
        url: `/v1/auth/keys/${body.key_id}`,
        headers: auth,
      });
      assert.equal(del.statusCode, 200);
      assert.deepEqual(del.json(), { message: "API key revoked", key_id: body.key_id });

      const after = await h.app.inject({
        method: "GET",
        url: "/v1/credits",
        headers: { "x-api-key": body.api_key },
      });
      assert.equal(after.statusCode, 401);
      assert.equal(after.json().error_code, "INVALID_API_KEY");
      const again = await h.app.inject({
        method: "DELETE",
        url: `/v1/auth/keys/${body.key_id}`,
        headers: auth,
      });
      assert.equal(again.statusCode, 404);
    });

    it("stores only the SHA-256 hash of a key", { skip }, async () => {
      const key = await h.apiKey("user_hash");
      const rows = await h.services.database.db.selectFrom("api_keys").selectAll().execute();
      assert.ok(rows.length > 0);
      for (const row of rows) assert.equal(JSON.stringify(row).includes(key), false);
    });

    it("refuses an API key on key management with 403, and another account's key with 404", {
      skip,
    }, async () => {
      const key = await h.apiKey("user_a");
      const res = await h.app.inject({ method: "GET", url: "/v1/auth/keys", headers: { "x-api-key": key } });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().error_code, "FORBIDDEN");

      const authA = { authorization: `Bearer ${await h.token("user_a")}` };
      const keyId = (await h.app.inject({ method: "GET", url: "/v1/auth/keys", headers: authA })).json()
        .keys[0].key_id;
      const authB = { authorization: `Bearer ${await h.token("user_b")}` };
      const del = await h.app.inject({ method: "DELETE", url: `/v1/auth/keys/${keyId}`, headers: authB });
      assert.equal(del.statusCode, 404);
    });

    it("answers missing, malformed and bad credentials with 401", { skip }, async () => {
      const none = await h.app.inject({ method: "GET", url: "/v1/credits" });
      assert.equal(none.statusCode, 401);
      assert.equal(none.json().error_code, "UNAUTHORIZED");
      const bad = await h.app.inject({
        method: "GET",
        url: "/v1/credits",
        headers: { "x-api-key": "sk_nope" },
      });
      assert.equal(bad.statusCode, 401);
      assert.equal(bad.json().error_code, "INVALID_API_KEY");
      const jwt = await h.app.inject({
        method: "GET",
        url: "/v1/credits",
        headers: { authorization: "Bearer x.y.z" },
      });
      assert.equal(jwt.statusCode, 401);
    });

    it("gives a new account 2.0 stored credits", { skip }, async () => {
      const res = await h.app.inject({
        method: "GET",
        url: "/v1/credits",
        headers: { authorization: `Bearer ${await h.token("user_new")}` },
      });
      assert.equal(res.statusCode, 200);
      const b = res.json();
      assert.equal(b.credits, 2);
      assert.equal(b.displayCredits, 2000);
      assert.match(b.updatedAt, /Z$/);
    });
  });
}
