// Connections through the API on both dialects, against the loopback Google and HubSpot fakes:
// verified before anything is stored, credentials encrypted and never returned, and a bad
// credential is a 422 that says why.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { loadConfig } from "../../src/config/config.js";
import { createServices, startQueue } from "../../src/main.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type FakeGoogle, startFakeGoogle } from "../support/fake-google.js";
import { type FakeHubSpot, startFakeHubSpot } from "../support/fake-hubspot.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

export function integrationEnv(google: FakeGoogle, hubspot: FakeHubSpot): Record<string, string> {
  return {
    ...UNLIMITED_RATE_ENV,
    ALLOW_PRIVATE_TARGETS: "true",
    LEADCHECK_SECRET_KEY: "test-secret-key-for-connection-credentials",
    GOOGLE_SHEETS_API_URL: google.sheetsUrl,
    GOOGLE_OAUTH_TOKEN_URL: google.tokenUrl,
    HUBSPOT_API_URL: hubspot.url,
    INTEGRATION_RETRY_BASE_DELAY_MS: "5",
    INTEGRATION_RETRY_MAX_DELAY_MS: "50",
  };
}

for (const kind of dialects()) {
  describe(`connections API (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let google: FakeGoogle;
    let hubspot: FakeHubSpot;
    let key: string;

    before(async () => {
      if (skip) return;
      google = await startFakeGoogle();
      hubspot = await startFakeHubSpot();
      h = await startHarness(kind, integrationEnv(google, hubspot));
      key = await h.apiKey("acct_conn");
    });
    after(async () => {
      if (skip) return;
      await h.close();
      await google.close();
      await hubspot.close();
    });

    it("connects HubSpot with a token it verified by reading contact properties", { skip }, async () => {
      const token = hubspot.newToken();
      const res = await h.call(key, "POST", "/v1/connections", {
        kind: "hubspot",
        name: "CRM",
        accessToken: token,
      });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.match(body.connectionId, /^con_/);
      assert.equal(body.status, "active");
      assert.equal(body.clientEmail, null);
      assert.ok(!res.body.includes(token), "the token is never returned");
      assert.ok(
        hubspot.calls.some((c) => c.url.startsWith("/crm/v3/properties/contacts") && c.status === 200),
      );
      const stored = await sql<{
        credentials: string;
      }>`select credentials from connections where id = ${body.connectionId}`.execute(h.services.database.db);
      assert.ok(!stored.rows[0]!.credentials.includes(token), "the token is stored encrypted");
      const listed = await h.call(key, "GET", "/v1/connections");
      assert.ok(!listed.body.includes(token));
      assert.equal(listed.json().total, 1);
    });

    it("connects a Google service account by obtaining a token, and shows its email", { skip }, async () => {
      const account = google.newServiceAccount();
      const res = await h.call(key, "POST", "/v1/connections", {
        kind: "google_sheets",
        name: "Sheets",
        serviceAccount: { ...account, token_uri: "http://169.254.169.254/token" },
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().clientEmail, account.client_email);
      assert.ok(!res.body.includes("PRIVATE KEY"));
      // The pasted token_uri was not followed: the only grant went to the configured endpoint.
      assert.ok(google.calls.some((c) => c.url === "/token" && c.status === 200));
    });

    it("refuses a bad credential with a 422 that says why, and stores nothing", { skip }, async () => {
      const before = (await h.call(key, "GET", "/v1/connections")).json().total;
      const revoked = hubspot.newToken();
      hubspot.revoke(revoked);
      const hub = await h.call(key, "POST", "/v1/connections", {
        kind: "hubspot",
        name: "x",
        accessToken: revoked,
      });
      assert.equal(hub.statusCode, 422, hub.body);
      assert.match(hub.json().message, /HubSpot refused the token/);
      const account = google.newServiceAccount();
      const other = google.newServiceAccount();
      const sheets = await h.call(key, "POST", "/v1/connections", {
        kind: "google_sheets",
        name: "x",
        serviceAccount: { ...account, private_key: other.private_key },
      });
      assert.equal(sheets.statusCode, 422, sheets.body);
      assert.match(sheets.json().message, /Invalid JWT Signature/);
      const garbage = await h.call(key, "POST", "/v1/connections", {
        kind: "google_sheets",
        name: "x",
        serviceAccount: { client_email: "a@b.c", private_key: "nope" },
      });
      assert.equal(garbage.statusCode, 422);
      assert.equal(garbage.json().details.errors[0].field, "serviceAccount.private_key");
      assert.equal((await h.call(key, "GET", "/v1/connections")).json().total, before);
    });

    it("refuses to start with connections stored and no LEADCHECK_SECRET_KEY", { skip }, async () => {
      const config = loadConfig({ NODE_ENV: "test", DATABASE_URL: h.testDb.url, LOG_LEVEL: "silent" });
      const services = await createServices(config, { migrate: false });
      try {
        await assert.rejects(startQueue(services), /LEADCHECK_SECRET_KEY is not set/);
      } finally {
        await services.close();
      }
    });

    it("deletes a connection; another account's connection is a 404", { skip }, async () => {
      const created = await h.call(key, "POST", "/v1/connections", {
        kind: "hubspot",
        name: "to delete",
        accessToken: hubspot.newToken(),
      });
      const id = created.json().connectionId;
      const otherKey = await h.apiKey("acct_other");
      assert.equal((await h.call(otherKey, "GET", `/v1/connections/${id}`)).statusCode, 404);
      assert.equal((await h.call(otherKey, "DELETE", `/v1/connections/${id}`)).statusCode, 404);
      assert.equal((await h.call(key, "DELETE", `/v1/connections/${id}`)).statusCode, 204);
      assert.equal((await h.call(key, "GET", `/v1/connections/${id}`)).statusCode, 404);
    });
  });
}
