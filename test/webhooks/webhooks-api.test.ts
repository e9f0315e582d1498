// The webhook endpoints through the real app on both dialects: validation of URLs (SSRF guard),
// event kinds and retry_config, secrets shown only on creation and rotation, another account's
// endpoint as 404. Registered URLs resolve to a public address through a local DNS server;
// nothing is delivered in this file (no workers, no test deliveries).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EVENT_TYPES } from "../../src/events/events.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.js";
import { type Harness, startHarness } from "../support/harness.js";

const PUBLIC_ADDRESS = "93.184.216.34";

for (const kind of dialects()) {
  describe(`webhooks API (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let dnsServer: TestDnsServer;
    let key = "";
    let otherKey = "";

    before(async () => {
      if (skip) return;
      dnsServer = await startDnsServer({
        "hooks.example.com": { A: [PUBLIC_ADDRESS] },
        "other.example.com": { A: [PUBLIC_ADDRESS] },
        "inside.example.com": { A: ["127.0.0.1"] },
      });
      h = await startHarness(kind, {
        DNS_SERVERS: dnsServer.address,
        ALLOW_PRIVATE_TARGETS: "false",
        RATE_LIMIT_PER_MINUTE: "100000",
        RATE_LIMIT_PER_HOUR: "100000",
      });
      key = await h.apiKey("acct_wh_owner");
      otherKey = await h.apiKey("acct_wh_other");
    });
    after(async () => {
      await h?.close();
      await dnsServer?.close();
    });

    const call = (
      method: "GET" | "POST" | "PATCH" | "DELETE",
      url: string,
      payload?: unknown,
      apiKey = key,
    ) => h.call(apiKey, method, url, payload);

    const valid = {
      name: "CRM sync",
      url: "https://hooks.example.com/leadcheck",
      events: ["lead.created", "batch.complete"],
      active: true,
      description: "Pushes leads to the CRM",
    };

    it("creates a webhook, shows its whsec_ secret once and the spec's fields", { skip }, async () => {
      const res = await call("POST", "/v1/webhooks", valid);
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.match(body.webhook_id, /^wh_[0-9a-z]{26}$/);
      assert.match(body.secret, /^whsec_/);
      assert.equal(body.user_id, "acct_wh_owner");
      assert.deepEqual(body.events, valid.events);
      assert.equal(body.active, true);
      assert.deepEqual(body.retry_config, { max_retries: 3, retry_delays: [1000, 5000, 15000] });
      assert.deepEqual(body.delivery_stats, {
        total_attempts: 0,
        successful_deliveries: 0,
        failed_deliveries: 0,
        last_delivery: null,
        last_success: null,
      });
      for (const url of [`/v1/webhooks/${body.webhook_id}`, "/v1/webhooks"]) {
        const read = await call("GET", url);
        assert.equal(read.statusCode, 200);
        assert.equal(read.body.includes("whsec_"), false, `${url} never shows the secret`);
        assert.equal(read.body.includes(body.secret), false);
      }
    });

    it("lists only the caller's webhooks with a total", { skip }, async () => {
      await call("POST", "/v1/webhooks", { ...valid, url: "https://other.example.com/x" }, otherKey);
      const mine = (await call("GET", "/v1/webhooks")).json();
      assert.equal(mine.total, mine.webhooks.length);
      assert.ok(mine.webhooks.every((w: { user_id: string }) => w.user_id === "acct_wh_owner"));
    });

    it("defaults to active with the default retry schedule and accepts every event kind", {
      skip,
    }, async () => {
      const res = await call("POST", "/v1/webhooks", {
        name: "all",
        url: "https://hooks.example.com/all",
        events: [...EVENT_TYPES, "lead.created"],
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().active, true);
      assert.deepEqual(res.json().events, [...EVENT_TYPES]);
    });

    const refusedBodies: [string, Record<string, unknown>, string][] = [
      ["an unknown event kind", { ...valid, events: ["lead.deleted"] }, "events.0"],
      ["no events", { ...valid, events: [] }, "events"],
      ["a missing url", { name: "x", events: ["lead.created"] }, "url"],
      ["a loopback URL", { ...valid, url: "http://127.0.0.1:9000/hook" }, "url"],
      ["a private URL", { ...valid, url: "http://10.0.0.5/hook" }, "url"],
      ["the metadata address", { ...valid, url: "http://169.254.169.254/" }, "url"],
      ["a name resolving to loopback", { ...valid, url: "https://inside.example.com/hook" }, "url"],
      ["a name that does not resolve", { ...valid, url: "https://nowhere.example.com/hook" }, "url"],
      ["a non-http URL", { ...valid, url: "file:///etc/passwd" }, "url"],
      ["more than 10 retries", { ...valid, retry_config: { max_retries: 11 } }, "retry_config.max_retries"],
      [
        "a delay over an hour",
        { ...valid, retry_config: { max_retries: 1, retry_delays: [3_600_001] } },
        "retry_config.retry_delays.0",
      ],
      [
        "more delays than retries",
        { ...valid, retry_config: { max_retries: 1, retry_delays: [1, 2] } },
        "retry_config.retry_delays",
      ],
    ];
    for (const [label, payload, field] of refusedBodies) {
      it(`refuses ${label} with 422 naming ${field}`, { skip }, async () => {
        const res = await call("POST", "/v1/webhooks", payload);
        assert.equal(res.statusCode, 422, res.body);
        const errors = res.json().details.errors as { field: string }[];
        assert.ok(
          errors.some((e) => e.field === field),
          JSON.stringify(errors),
        );
      });
    }

    it("keeps a custom retry_config in its effective form", { skip }, async () => {
      const res = await call("POST", "/v1/webhooks", {
        ...valid,
        retry_config: { max_retries: 4, retry_delays: [500, 2000] },
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(res.json().retry_config, { max_retries: 4, retry_delays: [500, 2000, 2000, 2000] });
    });

    it("updates any changeable field and re-checks a new URL", { skip }, async () => {
      const id = (await call("POST", "/v1/webhooks", valid)).json().webhook_id;
      const res = await call("PATCH", `/v1/webhooks/${id}`, {
        active: false,
        events: ["credits.low"],
        name: "Renamed",
        description: null,
        retry_config: { max_retries: 0 },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.active, false);
      assert.deepEqual(body.events, ["credits.low"]);
      assert.equal(body.name, "Renamed");
      assert.equal(body.description, null);
      assert.deepEqual(body.retry_config, { max_retries: 0, retry_delays: [] });
      assert.equal("secret" in body, false);
      const bad = await call("PATCH", `/v1/webhooks/${id}`, { url: "http://192.168.0.1/" });
      assert.equal(bad.statusCode, 422);
      assert.equal((await call("GET", `/v1/webhooks/${id}`)).json().url, valid.url);
    });

    it("rotates the secret: the new one is shown once and replaces the old", { skip }, async () => {
      const created = (await call("POST", "/v1/webhooks", valid)).json();
      const res = await call("POST", `/v1/webhooks/${created.webhook_id}/rotate-secret`);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.webhook_id, created.webhook_id);
      assert.match(body.secret, /^whsec_/);
      assert.notEqual(body.secret, created.secret);
      assert.ok(Number.isFinite(Date.parse(body.rotated_at)));
      const stored = await h.services.database.db
        .selectFrom("webhooks")
        .select("secret")
        .where("id", "=", created.webhook_id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.secret, body.secret);
    });

    it("deletes a webhook; it is then 404", { skip }, async () => {
      const id = (await call("POST", "/v1/webhooks", valid)).json().webhook_id;
      const res = await call("DELETE", `/v1/webhooks/${id}`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { message: "Webhook deleted", webhook_id: id });
      assert.equal((await call("GET", `/v1/webhooks/${id}`)).statusCode, 404);
      assert.equal((await call("DELETE", `/v1/webhooks/${id}`)).statusCode, 404);
    });

    it("answers 404 on every route for another account's webhook and changes nothing", { skip }, async () => {
      const created = (await call("POST", "/v1/webhooks", valid)).json();
      const id = created.webhook_id;
      const attempts: [Parameters<typeof call>[0], string, unknown][] = [
        ["GET", `/v1/webhooks/${id}`, undefined],
        ["PATCH", `/v1/webhooks/${id}`, { active: false }],
        ["DELETE", `/v1/webhooks/${id}`, undefined],
        ["POST", `/v1/webhooks/${id}/rotate-secret`, undefined],
        ["POST", `/v1/webhooks/${id}/test`, { event: "lead.created" }],
        ["GET", `/v1/webhooks/${id}/deliveries`, undefined],
        ["POST", `/v1/webhooks/${id}/deliveries/dlv_01jaaaaaaaaaaaaaaaaaaaaaaa/redeliver`, undefined],
      ];
      for (const [method, url, payload] of attempts) {
        const res = await call(method, url, payload, otherKey);
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().error_code, "NOT_FOUND");
      }
      const after = (await call("GET", `/v1/webhooks/${id}`)).json();
      assert.equal(after.active, true);
      const listed = (await call("GET", "/v1/webhooks", undefined, otherKey)).json();
      assert.equal(
        listed.webhooks.some((w: { webhook_id: string }) => w.webhook_id === id),
        false,
      );
    });

    it("answers 404 for a missing delivery of one's own webhook", { skip }, async () => {
      const id = (await call("POST", "/v1/webhooks", valid)).json().webhook_id;
      const res = await call("POST", `/v1/webhooks/${id}/deliveries/dlv_missing/redeliver`);
      assert.equal(res.statusCode, 404);
    });

    it("refuses a test delivery of an unknown event kind with 422", { skip }, async () => {
      const id = (await call("POST", "/v1/webhooks", valid)).json().webhook_id;
      const res = await call("POST", `/v1/webhooks/${id}/test`, { event: "nope" });
      assert.equal(res.statusCode, 422);
    });

    it("caps the number of webhooks per account with 409", { skip }, async () => {
      const capped = await h.apiKey("acct_wh_capped");
      for (let i = 0; i < 25; i++) {
        const res = await call("POST", "/v1/webhooks", valid, capped);
        assert.equal(res.statusCode, 201, res.body);
      }
      const res = await call("POST", "/v1/webhooks", valid, capped);
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().error_code, "CONFLICT");
    });

    it("holds the cap when the last endpoints are created at once", { skip }, async () => {
      const racing = await h.apiKey("acct_wh_racing");
      for (let i = 0; i < 23; i++) await call("POST", "/v1/webhooks", valid, racing);
      const results = await Promise.all(
        Array.from({ length: 6 }, () => call("POST", "/v1/webhooks", valid, racing)),
      );
      assert.deepEqual(
        results.map((r) => r.statusCode).sort(),
        [201, 201, 409, 409, 409, 409],
        results.map((r) => r.body).join("\n"),
      );
      assert.equal((await call("GET", "/v1/webhooks", undefined, racing)).json().total, 25);
    });
  });
}
