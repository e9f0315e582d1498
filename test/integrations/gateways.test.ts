// The official clients against the loopback fakes: the token exchange at the configured URL (its
// audience too), the SSRF guard on their transport, and the failures the sync acts on.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SheetsGateway } from "../../src/integrations/google-sheets.gateway.js";
import { guardedAgent, guardedFetch } from "../../src/integrations/guarded-transport.js";
import { HubSpotGateway } from "../../src/integrations/hubspot.gateway.js";
import { RemoteError } from "../../src/integrations/remote-error.js";
import { DnsResolver } from "../../src/net/dns.js";
import { type FakeGoogle, startFakeGoogle } from "../support/fake-google.js";
import { type FakeHubSpot, startFakeHubSpot } from "../support/fake-hubspot.js";

const backoff = { retryLimit: 4, baseDelayMs: 5, maxDelayMs: 20 };
const dns = new DnsResolver({ servers: ["127.0.0.1:9"], timeoutMs: 200 });
const open = { dns, allowPrivateTargets: true };

describe("integration gateways against the fakes", () => {
  let google: FakeGoogle;
  let hubspot: FakeHubSpot;
  before(async () => {
    google = await startFakeGoogle({ perUserPerWindow: 1000 });
    hubspot = await startFakeHubSpot({ perWindow: 1000 });
  });
  after(async () => {
    await google.close();
    await hubspot.close();
    dns.close();
  });

  const sheetsGateway = (key: { client_email: string; private_key: string }, allowPrivateTargets = true) =>
    new SheetsGateway(key, {
      sheetsApiUrl: google.sheetsUrl,
      tokenUrl: google.tokenUrl,
      fetch: guardedFetch({ dns, allowPrivateTargets }),
      backoff,
      requestsPerWindow: 1000,
      windowMs: 60_000,
      requestTimeoutMs: 5000,
    });

  it("exchanges the service account's JWT at the configured token URL, which is also its audience", async () => {
    const key = google.newServiceAccount();
    await sheetsGateway(key).verify();
    const grant = google.calls.filter((c) => c.url === "/token");
    assert.equal(grant.length, 1);
    assert.equal(grant[0]!.status, 200);
  });

  it("reads and writes a shared sheet through the official client", async () => {
    const key = google.newServiceAccount();
    const sheet = google.addSpreadsheet({
      sheets: {
        "My Leads": [
          ["Email", "Name"],
          ["a@x.test", "A"],
        ],
      },
    });
    sheet.sharedWith.add(key.client_email);
    const gateway = sheetsGateway(key);
    const info = await gateway.spreadsheet(sheet.spreadsheetId);
    assert.deepEqual(
      info.sheets.map((s) => s.title),
      ["My Leads"],
    );
    assert.deepEqual(await gateway.values(sheet.spreadsheetId, "'My Leads'!A1:Z"), [
      ["Email", "Name"],
      ["a@x.test", "A"],
    ]);
    assert.equal(
      await gateway.write(sheet.spreadsheetId, [{ range: "'My Leads'!C2", values: [["valid"]] }]),
      1,
    );
    assert.deepEqual(google.sheet(sheet.spreadsheetId, "My Leads").rows[1], ["a@x.test", "A", "valid"]);
  });

  it("reads a key another private key signed as a refused credential, and a sheet not shared as not found", async () => {
    const key = google.newServiceAccount();
    const other = google.newServiceAccount();
    await assert.rejects(
      sheetsGateway({ ...key, private_key: other.private_key }).verify(),
      (error: unknown) => {
        assert.ok(error instanceof RemoteError);
        assert.equal(error.kind, "auth");
        assert.match(error.message, /Invalid JWT Signature/);
        return true;
      },
    );
    const sheet = google.addSpreadsheet({ sheets: { Sheet1: [["Email"]] } });
    await assert.rejects(sheetsGateway(key).spreadsheet(sheet.spreadsheetId), (error: unknown) => {
      assert.ok(error instanceof RemoteError);
      assert.equal(error.kind, "not_found");
      assert.match(error.message, new RegExp(`not shared with ${key.client_email}`));
      return true;
    });
  });

  it("retries Google's 429 and 5xx with backoff until it answers", async () => {
    const key = google.newServiceAccount();
    const sheet = google.addSpreadsheet({ sheets: { Sheet1: [["Email"]] } });
    sheet.sharedWith.add(key.client_email);
    google.failures.push({ status: 503, remaining: 2, match: /values/ });
    const gateway = sheetsGateway(key);
    assert.deepEqual(await gateway.values(sheet.spreadsheetId, "Sheet1!A1:Z"), [["Email"]]);
    const statuses = google.calls
      .filter((c) => c.url.includes("/values/"))
      .map((c) => c.status)
      .slice(-3);
    assert.deepEqual(statuses, [503, 503, 200]);
  });

  it("refuses loopback targets through the SSRF guard unless private targets are allowed", async () => {
    const key = google.newServiceAccount();
    await assert.rejects(sheetsGateway(key, false).verify(), (error: unknown) => {
      assert.ok(error instanceof RemoteError);
      assert.equal(error.kind, "refused");
      return true;
    });
    const gateway = new HubSpotGateway(hubspot.newToken(), {
      apiUrl: hubspot.url,
      agent: guardedAgent(hubspot.url, { dns, allowPrivateTargets: false }),
      backoff,
      requestsPerWindow: 100,
      windowMs: 10_000,
    });
    await assert.rejects(
      gateway.verify(),
      (error: unknown) => error instanceof RemoteError && error.kind === "refused",
    );
    // The account-info call goes outside the generated APIs; it is guarded all the same.
    await assert.rejects(
      gateway.portalId(),
      (error: unknown) => error instanceof RemoteError && error.kind === "refused",
    );
  });

  it("HubSpot: verifies a token, reads contacts in batches, and tells a revoked token apart", async () => {
    const token = hubspot.newToken();
    const gateway = new HubSpotGateway(token, {
      apiUrl: hubspot.url,
      agent: guardedAgent(hubspot.url, open),
      backoff,
      requestsPerWindow: 100,
      windowMs: 10_000,
    });
    await gateway.verify();
    assert.match(await gateway.portalId(), /^\d+$/, "the portal id from the account details");
    const a = hubspot.addContact({ email: "a@x.test", firstname: "A" });
    const b = hubspot.addContact({ email: "b@x.test" });
    hubspot.contacts.delete(b.id);
    const read = await gateway.readContacts([a.id, b.id]);
    assert.deepEqual(
      read.map((c) => c.id),
      [a.id],
    );
    await gateway.ensureProperties([{ name: "leadcheck_status", label: "Status", type: "string" }]);
    await gateway.ensureProperties([{ name: "leadcheck_status", label: "Status", type: "string" }]);
    assert.ok(hubspot.properties.has("leadcheck_status"));
    await gateway.update([{ id: a.id, properties: { leadcheck_status: "valid" } }]);
    assert.equal(hubspot.contacts.get(a.id)!.properties.leadcheck_status, "valid");
    hubspot.revoke(token);
    await assert.rejects(
      gateway.verify(),
      (error: unknown) => error instanceof RemoteError && error.kind === "auth",
    );
  });

  it("HubSpot: rides out a 429 storm at the account's limit without failing a call", async () => {
    hubspot.limit.limit = 3;
    hubspot.limit.windowMs = 200;
    hubspot.limit.reset();
    try {
      const gateway = new HubSpotGateway(hubspot.newToken(), {
        apiUrl: hubspot.url,
        agent: undefined,
        backoff: { retryLimit: 10, baseDelayMs: 50, maxDelayMs: 200 },
        requestsPerWindow: 100,
        windowMs: 10_000,
      });
      await Promise.all(Array.from({ length: 10 }, () => gateway.verify()));
      assert.ok(
        hubspot.calls.some((c) => c.status === 429),
        "the fake answered 429",
      );
    } finally {
      hubspot.limit.limit = 1000;
      hubspot.limit.windowMs = 10_000;
    }
  });
});
