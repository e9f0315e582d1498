// HubSpot syncs end to end on both dialects: @hubspot/api-client against the fake CRM, leads
// from a list's members read in batches, our properties created once and written in batches of
// at most 100, and the failures: a contact deleted mid-sync, a revoked token, a deleted list, and
// a pass whose attempt failed half-way resuming without writing anything twice.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { finishedSync, type SyncWorld, startSyncWorld } from "./sync-support.js";

for (const kind of dialects()) {
  describe(`HubSpot sync (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let w: SyncWorld;
    let key: string;

    before(async () => {
      if (skip) return;
      w = await startSyncWorld(kind, { INTEGRATION_RETRY_LIMIT: "2" });
      key = await w.h.apiKey("acct_hubspot");
    });
    after(async () => {
      if (!skip) await w.close();
    });

    const connect = async () => {
      const token = w.hubspot.newToken();
      const res = await w.h.call(key, "POST", "/v1/connections", {
        kind: "hubspot",
        name: "CRM",
        accessToken: token,
      });
      assert.equal(res.statusCode, 201, res.body);
      return { token, connectionId: res.json().connectionId as string };
    };
    const startSync = async (connectionId: string, body: Record<string, unknown>) => {
      const res = await w.h.call(key, "POST", `/v1/connections/${connectionId}/syncs`, body);
      assert.equal(res.statusCode, 202, res.body);
      return finishedSync(w.h, key, res.json().syncId);
    };

    it("syncs a list: batch reads, validates, creates our properties once and writes only them", {
      skip,
    }, async () => {
      const { connectionId } = await connect();
      const alice = w.hubspot.addContact({ email: "alice@acme.test", firstname: "Alice", jobtitle: "CTO" });
      const nobody = w.hubspot.addContact({ email: "nobody@acme.test", company: "Acme" });
      const noEmail = w.hubspot.addContact({ firstname: "No mail" });
      w.hubspot.lists.set("7", [alice.id, nobody.id, noEmail.id]);
      const sync = await startSync(connectionId, { listId: "7" });
      assert.equal(sync.status, "completed", JSON.stringify(sync));
      assert.deepEqual(
        [
          sync.counts.read,
          sync.counts.created,
          sync.counts.skipped,
          sync.counts.validated,
          sync.counts.written,
        ],
        [3, 2, 1, 2, 2],
      );
      assert.equal(w.hubspot.contacts.get(alice.id)!.properties.leadcheck_status, "valid");
      assert.equal(w.hubspot.contacts.get(nobody.id)!.properties.leadcheck_status, "invalid");
      assert.equal(w.hubspot.contacts.get(noEmail.id)!.properties.leadcheck_status, undefined);
      assert.ok(
        w.hubspot.writes.every((x) => x.property.startsWith("leadcheck_")),
        "only our properties are written",
      );
      assert.ok(
        w.hubspot.writes.every((x) => x.value !== ""),
        "never an empty value",
      );
      assert.ok(w.hubspot.groups.has("leadcheck"));
      const reads = w.hubspot.calls.filter((c) => c.url.startsWith("/crm/v3/objects/contacts/batch/read"));
      assert.equal(reads.length, 1, "one batch read for the list's page, not one call per contact");
      const lead = (await w.h.call(key, "GET", "/v1/leads?source=hubspot"))
        .json()
        .leads.find((l: { email: string }) => l.email === "alice@acme.test");
      assert.equal(lead.externalId, alice.id);
      assert.equal(lead.title, "CTO");
      // A second pass creates nothing again: the properties exist, the leads are matched.
      const created = w.hubspot.calls.filter(
        (c) => c.method === "POST" && c.url === "/crm/v3/properties/contacts",
      ).length;
      const again = await startSync(connectionId, { listId: "7", validate: false });
      assert.equal(again.counts.matched, 2);
      assert.equal(
        w.hubspot.calls.filter((c) => c.method === "POST" && c.url === "/crm/v3/properties/contacts").length,
        created,
      );
    });

    it("reports a contact deleted mid-sync and writes the others", { skip }, async () => {
      const { connectionId } = await connect();
      const keep = w.hubspot.addContact({ email: "bob@acme.test" });
      const gone = w.hubspot.addContact({ email: "carol@acme.test" });
      w.hubspot.lists.set("8", [keep.id, gone.id]);
      w.hubspot.afterBatchRead = (ids) => {
        if (ids.includes(gone.id)) w.hubspot.contacts.delete(gone.id);
      };
      try {
        const sync = await startSync(connectionId, { listId: "8", validate: false });
        assert.equal(sync.status, "completed", JSON.stringify(sync));
        assert.equal(sync.counts.written, 1);
        assert.deepEqual(sync.errors, [
          { item: `contact ${gone.id}`, message: "contact deleted during the sync; not written" },
        ]);
        assert.ok(w.hubspot.contacts.get(keep.id)!.properties.leadcheck_status);
      } finally {
        w.hubspot.afterBatchRead = undefined;
      }
    });

    it("resumes a pass whose attempt failed half-way, writing each contact exactly once", {
      skip,
    }, async () => {
      const { connectionId } = await connect();
      const ids = Array.from(
        { length: 150 },
        (_, i) => w.hubspot.addContact({ email: `user${i}@catchall.test` }).id,
      );
      w.hubspot.lists.set("9", ids);
      let armed = true;
      w.hubspot.afterBatchUpdate = (updated) => {
        // After the first chunk of 100 lands, HubSpot fails for longer than the retries last.
        if (armed && updated.some((id) => ids.includes(id))) {
          armed = false;
          w.hubspot.failures.push({ status: 502, remaining: 3, match: /batch\/update/ });
        }
      };
      try {
        const sync = await startSync(connectionId, { listId: "9", validate: false });
        assert.equal(sync.status, "completed", JSON.stringify(sync));
        assert.equal(sync.counts.written, 150);
      } finally {
        w.hubspot.afterBatchUpdate = undefined;
      }
      const failedUpdates = w.hubspot.calls.filter((c) => c.url.includes("batch/update") && c.status === 502);
      assert.equal(failedUpdates.length, 3, "the attempt failed after its retries");
      for (const id of ids) {
        const writes = w.hubspot.writes.filter(
          (x) => x.contactId === id && x.property === "leadcheck_status",
        );
        assert.equal(writes.length, 1, `contact ${id} written once`);
      }
      const memberReads = w.hubspot.calls.filter((c) => c.url.startsWith("/crm/v3/lists/9/memberships"));
      assert.equal(memberReads.length, 2, "the import was not read again (two pages of 100)");
    });

    it("with no list, reads every contact a page of 100 at a time", { skip }, async () => {
      const { connectionId } = await connect();
      w.hubspot.addContact({ email: "dave@grey.test" });
      const total = w.hubspot.contacts.size;
      const pages = w.hubspot.calls.filter((c) => c.url.startsWith("/crm/v3/objects/contacts?")).length;
      const sync = await startSync(connectionId, { validate: false, writeBack: false });
      assert.equal(sync.status, "completed", JSON.stringify(sync));
      assert.equal(sync.counts.read, total);
      assert.equal(sync.counts.written, 0);
      const pagesNow = w.hubspot.calls.filter((c) => c.url.startsWith("/crm/v3/objects/contacts?")).length;
      assert.equal(pagesNow - pages, Math.ceil(total / 100));
    });

    it("ends failed for a deleted list, and a revoked token sets the connection to needs_reauth", {
      skip,
    }, async () => {
      const { token, connectionId } = await connect();
      const missing = await startSync(connectionId, { listId: "404" });
      assert.equal(missing.status, "failed");
      assert.match(missing.failureReason, /not found/);
      w.hubspot.lists.set("10", [w.hubspot.addContact({ email: "alice@acme.test" }).id]);
      w.hubspot.revoke(token);
      const revoked = await startSync(connectionId, { listId: "10" });
      assert.equal(revoked.status, "failed");
      assert.match(revoked.failureReason, /HubSpot refused the token/);
      assert.equal(
        (await w.h.call(key, "GET", `/v1/connections/${connectionId}`)).json().status,
        "needs_reauth",
      );
    });
  });
}
