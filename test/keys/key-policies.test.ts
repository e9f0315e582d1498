// Restricted, expiring and publishable keys through the API, on both dialects: what a key may do
// is decided on every request, from the policy stored with it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

for (const kind of dialects()) {
  describe(`key policies (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let nowMs = Date.parse("2026-06-01T12:00:00Z");
    const clock = { now: () => new Date(nowMs) };
    let auth: Record<string, string>;
    before(async () => {
      if (skip) return;
      h = await startHarness(kind, UNLIMITED_RATE_ENV, { clock });
      auth = { authorization: `Bearer ${await h.token("acct_policy")}` };
    });
    after(async () => h?.close());

    const create = (payload: Record<string, unknown>) =>
      h.app.inject({
        method: "POST",
        url: "/v1/auth/keys",
        headers: auth,
        payload: { name: "k", ...payload },
      });
    const get = (key: string, url: string, remoteAddress = "127.0.0.1") =>
      h.app.inject({ method: "GET", url, headers: { "x-api-key": key }, remoteAddress });

    it("keeps a key without permissions able to do everything (the spec's behaviour)", { skip }, async () => {
      const res = await create({});
      assert.equal(res.statusCode, 201);
      const body = res.json();
      assert.equal(body.type, "secret");
      assert.equal(body.mode, "live");
      assert.equal(body.permissions, null);
      for (const url of ["/v1/credits", "/v1/leads", "/v1/webhooks", "/v1/batches"])
        assert.equal((await get(body.api_key, url)).statusCode, 200, url);
    });

    it("refuses a request outside the key's permissions with 403 naming the permission", {
      skip,
    }, async () => {
      const key = (await create({ permissions: ["leads:read"] })).json().api_key;
      assert.equal((await get(key, "/v1/leads")).statusCode, 200);
      const refused = await get(key, "/v1/credits");
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().error_code, "INSUFFICIENT_PERMISSIONS");
      assert.equal(refused.json().details.required, "credits:read");
      const write = await h.app.inject({
        method: "POST",
        url: "/v1/leads",
        headers: { "x-api-key": key },
        payload: { email: "a@acme.test" },
      });
      assert.equal(write.json().details.required, "leads:write");
    });

    it("refuses another IP with 403 IP_NOT_ALLOWED, for IPv4 and IPv6 blocks", { skip }, async () => {
      const key = (await create({ allowedIps: ["203.0.113.0/24", "2001:db8::/32"] })).json().api_key;
      assert.equal((await get(key, "/v1/credits", "203.0.113.9")).statusCode, 200);
      assert.equal((await get(key, "/v1/credits", "2001:db8::42")).statusCode, 200);
      const refused = await get(key, "/v1/credits", "198.51.100.1");
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().error_code, "IP_NOT_ALLOWED");
    });

    it("refuses an expired key with 401 and the reason, also when it is cached", { skip }, async () => {
      const expiresAt = new Date(nowMs + 60_000).toISOString();
      const key = (await create({ expiresAt })).json().api_key;
      assert.equal((await get(key, "/v1/credits")).statusCode, 200);
      nowMs += 61_000;
      const refused = await get(key, "/v1/credits");
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().details.reason, "expired");
      assert.equal(refused.json().details.expiredAt, expiresAt);
    });

    it("refuses bad policies with 422 naming each field", { skip }, async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ permissions: ["leads:read", "root"] }, "permissions.1"],
        [{ allowedIps: ["10.0.0.0/40"] }, "allowedIps.0"],
        [{ expiresAt: "2020-01-01T00:00:00Z" }, "expiresAt"],
        [{ expiresAt: "tomorrow" }, "expiresAt"],
        [{ type: "publishable" }, "allowedOrigins"],
        [{ type: "publishable", allowedOrigins: ["https://acme.com/path"] }, "allowedOrigins.0"],
        [{ type: "publishable", allowedOrigins: ["http://localhost:3000"] }, "allowedOrigins.0"],
        [
          { type: "publishable", allowedOrigins: ["https://acme.com"], permissions: ["leads:read"] },
          "permissions",
        ],
        [{ allowedOrigins: ["https://acme.com"] }, "allowedOrigins"],
        [{ mode: "sandbox" }, "mode"],
      ];
      for (const [payload, field] of cases) {
        const res = await create(payload);
        assert.equal(res.statusCode, 422, JSON.stringify(payload));
        const fields = res.json().details.errors.map((e: { field: string }) => e.field);
        assert.ok(fields.includes(field), `${JSON.stringify(payload)}: ${fields}`);
      }
    });

    it("issues pk_ keys that listings show whole, and refuses them on every other endpoint", {
      skip,
    }, async () => {
      const res = await create({
        type: "publishable",
        allowedOrigins: ["https://www.acme.com", "https://*.acme.com"],
      });
      assert.equal(res.statusCode, 201);
      const pk = res.json().api_key;
      assert.match(pk, /^pk_[A-Za-z0-9]{40}$/);
      const testKey = await create({
        type: "publishable",
        mode: "test",
        allowedOrigins: ["http://localhost:3000"],
      });
      assert.equal(testKey.statusCode, 201, testKey.body);

      const list = (await h.app.inject({ method: "GET", url: "/v1/auth/keys", headers: auth })).json().keys;
      const listed = list.find((k: { key_id: string }) => k.key_id === res.json().key_id);
      assert.equal(listed.api_key, pk);
      assert.equal(listed.type, "publishable");
      assert.deepEqual(listed.allowedOrigins, ["https://www.acme.com", "https://*.acme.com"]);
      assert.equal(listed.partial_key, `pk_...${pk.slice(-4)}`);
      for (const secret of list.filter((k: { type: string }) => k.type === "secret"))
        assert.equal(secret.api_key, undefined, "secret keys are never listed whole");

      for (const url of ["/v1/credits", "/v1/leads", "/v1/webhooks"]) {
        const refused = await get(pk, url);
        assert.equal(refused.statusCode, 403, url);
        assert.equal(refused.json().error_code, "INSUFFICIENT_PERMISSIONS");
      }
      const keys = await h.app.inject({ method: "GET", url: "/v1/auth/keys", headers: { "x-api-key": pk } });
      assert.equal(keys.statusCode, 403);
    });
  });
}
