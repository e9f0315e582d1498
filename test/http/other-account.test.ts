// Another account's id is the same 404 as a missing one, on every route that takes an id, on both
// databases. The operations come from the app's own OpenAPI document: each one with a path
// parameter is called with account B's credentials and account A's ids, and must answer 404 in the
// error body (NOT_FOUND) and leave A's resource as it was. An operation with a path parameter that
// has neither a fixture here nor a reason in EXEMPT fails the test, so a new id-route cannot pass
// without being checked.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.js";
import { type FakeGoogle, startFakeGoogle } from "../support/fake-google.js";
import { type FakeHubSpot, startFakeHubSpot } from "../support/fake-hubspot.js";
import { type Harness, startHarness, TEST_ADMIN_TOKEN, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { bearer, join } from "../teams/team-support.js";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

interface Operation {
  id: string;
  method: Method;
  path: string;
  params: string[];
  auth: "apiKey" | "bearer" | "none";
}

/** Operations with a path parameter that is not an account's resource id, and why. */
const EXEMPT: Record<string, string> = {
  grantCredits: "the operator's admin token acts on any account by its id; no account key is accepted",
  acceptTeamInvitation:
    "the path holds the invitation's secret token, meant for another person: whoever signs in holding it joins",
};

const STILL = Date.now();

/** A valid body per operation, so that the call reaches the ownership check rather than a 422. */
const BODIES: Record<string, unknown> = {
  updateLead: { firstName: "Mallory" },
  updateWebhook: { name: "taken over" },
  testWebhook: { event: "lead.created" },
  startSync: { validate: false, writeBack: false },
  previewSync: {},
  changeTeamMemberRole: { role: "owner" },
};

/** Account A's resources, one id per path parameter name. */
interface Fixture {
  ids: Record<string, string>;
  /** The download token of A's export (the download's credential). */
  exportToken: string;
  /** B's own export's token: a valid credential for another export. */
  otherExportToken: string;
}

/** What A sees of a parameter's resource; must not change by B's call. */
const SNAPSHOTS: Record<string, (ids: Record<string, string>) => { url: string; as: "apiKey" | "bearer" }> = {
  leadId: (ids) => ({ url: `/v1/leads/${ids.leadId}`, as: "apiKey" }),
  lead_id: (ids) => ({ url: `/v1/leads/${ids.lead_id}`, as: "apiKey" }),
  batchId: (ids) => ({ url: `/v1/batches/${ids.batchId}`, as: "apiKey" }),
  jobId: (ids) => ({ url: `/v1/validation-jobs/${ids.jobId}`, as: "apiKey" }),
  webhook_id: (ids) => ({ url: `/v1/webhooks/${ids.webhook_id}`, as: "apiKey" }),
  delivery_id: (ids) => ({ url: `/v1/webhooks/${ids.webhook_id}/deliveries`, as: "apiKey" }),
  export_id: (ids) => ({ url: `/v1/account/export/${ids.export_id}`, as: "apiKey" }),
  connectionId: (ids) => ({ url: `/v1/connections/${ids.connectionId}`, as: "apiKey" }),
  syncId: (ids) => ({ url: `/v1/syncs/${ids.syncId}`, as: "apiKey" }),
  watchId: (ids) => ({ url: `/v1/connections/${ids.connectionId}`, as: "apiKey" }),
  key_id: () => ({ url: "/v1/auth/keys", as: "bearer" }),
  memberId: () => ({ url: "/v1/team/members", as: "bearer" }),
  invitationId: () => ({ url: "/v1/team/invitations", as: "bearer" }),
};

for (const kind of dialects())
  describe(`another account's id answers 404 (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let dns: TestDnsServer;
    let google: FakeGoogle;
    let hubspot: FakeHubSpot;
    let operations: Operation[] = [];
    const A = `acct_own_a_${kind}`;
    const B = `acct_own_b_${kind}`;
    const keys: Record<string, string> = {};
    let fixture: Fixture;

    const call = async (
      account: string,
      as: "apiKey" | "bearer" | "none",
      method: Method,
      url: string,
      payload?: unknown,
    ) =>
      h.app.inject({
        method,
        url,
        headers:
          as === "apiKey" ? { "x-api-key": keys[account]! } : as === "bearer" ? await bearer(account) : {},
        ...(payload !== undefined ? { payload: payload as object } : {}),
      });

    /** A's call that must succeed while building the fixture; returns its JSON. */
    const must = async (
      method: Method,
      url: string,
      payload?: unknown,
      as: "apiKey" | "bearer" = "apiKey",
    ) => {
      const res = await call(A, as, method, url, payload);
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.statusCode === 204 ? {} : res.json();
    };

    before(async () => {
      if (skip) return;
      dns = await startDnsServer({ "hooks.owner-a.test": { A: ["127.0.0.1"] } });
      google = await startFakeGoogle();
      hubspot = await startFakeHubSpot();
      h = await startHarness(
        kind,
        {
          ...UNLIMITED_RATE_ENV,
          LEADCHECK_SECRET_KEY: "test-secret-key-for-connection-credentials",
          GOOGLE_SHEETS_API_URL: google.sheetsUrl,
          GOOGLE_OAUTH_TOKEN_URL: google.tokenUrl,
          HUBSPOT_API_URL: hubspot.url,
          DNS_SERVERS: dns.address,
          ALLOW_PRIVATE_TARGETS: "true",
        },
        // Time stands still, so a resource's clock-derived fields (a job's elapsed time) read the
        // same before and after B's call, and any difference is a change B made.
        { clock: { now: () => new Date(STILL) } },
      );
      for (const account of [A, B]) {
        keys[account] = await h.apiKey(account);
        const granted = await h.app.inject({
          method: "POST",
          url: `/v1/admin/accounts/${account}/credits`,
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          payload: { credits: 1000, reason: "test" },
        });
        assert.ok(granted.statusCode < 300, granted.body);
      }
      const doc = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json() as {
        paths: Record<string, Record<string, { operationId: string; security?: Record<string, unknown>[] }>>;
      };
      operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.entries(ops).flatMap(([method, op]) => {
          const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
          if (params.length === 0) return [];
          const security = op.security ?? [];
          const auth = security.some((s) => "apiKey" in s)
            ? ("apiKey" as const)
            : security.some((s) => "bearer" in s)
              ? ("bearer" as const)
              : ("none" as const);
          return [{ id: op.operationId, method: method.toUpperCase() as Method, path, params, auth }];
        }),
      );

      // A's resources, made as a user would.
      const ids: Record<string, string> = {};
      const lead = await must("POST", "/v1/leads", { email: "owner.a@acme.test", validate: false });
      ids.leadId = ids.lead_id = lead.id;
      ids.batchId = (await must("POST", "/v1/batch", { domains: ["acme.test"] })).batchId;
      // No worker runs here, so the check answers "processing" with its job once its shortest wait
      // (5 s) is up; the rest of the fixture is made meanwhile.
      const emailCheck = must("POST", "/v1/check-email", { email: "owner.a@acme.test", timeout: 5 });
      const webhook = await must("POST", "/v1/webhooks", {
        name: "A's hook",
        url: "https://hooks.owner-a.test/in",
        events: ["lead.created"],
      });
      ids.webhook_id = webhook.webhook_id;
      ids.delivery_id = (
        await must("POST", `/v1/webhooks/${webhook.webhook_id}/test`, { event: "lead.created" })
      ).delivery_id;
      const exported = await must("POST", "/v1/account/export");
      ids.export_id = exported.export_id;
      const otherExport = (await call(B, "apiKey", "POST", "/v1/account/export")).json();
      const connection = await must("POST", "/v1/connections", {
        kind: "hubspot",
        name: "A's CRM",
        accessToken: hubspot.newToken(),
      });
      ids.connectionId = connection.connectionId;
      const sync = await must("POST", `/v1/connections/${connection.connectionId}/syncs`, {
        validate: false,
        writeBack: false,
        watch: { everyMinutes: 60 },
      });
      ids.syncId = sync.syncId;
      const watches = (await must("GET", `/v1/connections/${connection.connectionId}`)).watches as {
        watchId: string;
      }[];
      ids.watchId = watches[0]!.watchId;
      const listedKeys = (await must("GET", "/v1/auth/keys", undefined, "bearer")) as {
        keys: { key_id: string }[];
      };
      ids.key_id = listedKeys.keys[0]!.key_id;
      ids.memberId = await join(h, A, A, `member_of_a_${kind}`, "analyst");
      ids.invitationId = (
        await must(
          "POST",
          "/v1/team/invitations",
          { email: "invitee.a@example.test", role: "analyst" },
          "bearer",
        )
      ).id;
      ids.jobId = (await emailCheck).jobId;
      fixture = { ids, exportToken: exported.token, otherExportToken: otherExport.token };
    });
    after(async () => {
      await h?.close();
      await dns?.close();
      await google?.close();
      await hubspot?.close();
    });

    it("finds the id-routes in the OpenAPI document, and each has a fixture or a stated exemption", {
      skip,
    }, () => {
      assert.ok(operations.length >= 25, `only ${operations.length} operations with a path parameter`);
      const unchecked = operations.filter(
        (op) => !(op.id in EXEMPT) && op.params.some((p) => !fixture.ids[p]),
      );
      assert.deepEqual(
        unchecked.map((op) => `${op.id} (${op.method} ${op.path})`),
        [],
        "operations with an id this test cannot fill: add a fixture (or an exemption with its reason)",
      );
      for (const id of Object.keys(EXEMPT))
        assert.ok(
          operations.some((op) => op.id === id),
          `${id} is exempt but no longer documented`,
        );
      for (const op of operations.filter((o) => !(o.id in EXEMPT)))
        assert.ok(SNAPSHOTS[op.params.at(-1)!], `${op.id}: no way to read A's ${op.params.at(-1)}`);
    });

    it("answers B's credentials on A's ids with the 404 of a missing resource, and changes nothing of A's", {
      skip,
    }, async () => {
      const checked: string[] = [];
      for (const op of operations) {
        if (op.id in EXEMPT) continue;
        const { ids } = fixture;
        let url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(ids[name]!));
        // The download's credential is its token, not a key: B's own, valid for B's export.
        if (op.auth === "none") url += `?token=${encodeURIComponent(fixture.otherExportToken)}`;
        const snapshot = SNAPSHOTS[op.params.at(-1)!]!(ids);
        const before = await call(A, snapshot.as, "GET", snapshot.url);
        assert.equal(before.statusCode, 200, `${op.id}: A reads ${snapshot.url}: ${before.body}`);

        const label = `${op.id}: B's ${op.method} ${url}`;
        const res = await call(B, op.auth, op.method, url, BODIES[op.id]);
        assert.equal(res.statusCode, 404, `${label} answered ${res.statusCode} ${res.body}`);
        const body = res.json();
        for (const field of ["error", "error_code", "message", "details"])
          assert.ok(field in body, `${label}: the error body has ${field}`);
        assert.equal(body.error_code, "NOT_FOUND", label);

        const afterwards = await call(A, snapshot.as, "GET", snapshot.url);
        assert.equal(afterwards.body, before.body, `${label} changed A's ${snapshot.url}`);
        checked.push(op.id);
      }
      assert.ok(checked.length >= 25, `checked ${checked.length} operations`);
    });

    it("still serves A its own export with A's token (the download check above is not vacuous)", {
      skip,
    }, async () => {
      const res = await h.app.inject({
        url: `/v1/account/export/${fixture.ids.export_id}/download?token=${encodeURIComponent(fixture.exportToken)}`,
      });
      assert.ok([200, 409].includes(res.statusCode), `${res.statusCode} ${res.body}`);
    });
  });
