// Watches on both dialects: a sync with `watch` passes over its source again every N minutes (a
// minute is shortened to 20 ms here) until stopped; each pass is a sync record. A sheet's next
// pass creates and validates exactly the rows added meanwhile; a HubSpot pass reads exactly the
// contacts created or changed since the previous one (search on lastmodifieddate).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { waitFor } from "../support/wait-for.js";
import { type SyncWorld, startSyncWorld } from "./sync-support.js";

interface SyncBody {
  syncId: string;
  status: string;
  counts: { read: number; created: number; matched: number; validated: number };
}

for (const kind of dialects()) {
  describe(`watches (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let w: SyncWorld;
    let key: string;

    before(async () => {
      if (skip) return;
      w = await startSyncWorld(kind, { WATCH_MINUTE_MS: "20" });
      key = await w.h.apiKey("acct_watch");
    });
    after(async () => {
      if (!skip) await w.close();
    });

    const passes = async (connectionId: string): Promise<SyncBody[]> =>
      (await w.h.call(key, "GET", `/v1/connections/${connectionId}/syncs`)).json().syncs;
    const stop = async (connectionId: string) => {
      const connection = (await w.h.call(key, "GET", `/v1/connections/${connectionId}`)).json();
      assert.equal(connection.watches.length, 1);
      const res = await w.h.call(
        key,
        "DELETE",
        `/v1/connections/${connectionId}/watches/${connection.watches[0].watchId}`,
      );
      assert.equal(res.statusCode, 204);
      assert.deepEqual((await w.h.call(key, "GET", `/v1/connections/${connectionId}`)).json().watches, []);
    };

    it("a sheet's next pass creates and validates exactly the rows added meanwhile", { skip }, async () => {
      const account = w.google.newServiceAccount();
      const created = await w.h.call(key, "POST", "/v1/connections", {
        kind: "google_sheets",
        name: "S",
        serviceAccount: account,
      });
      const connectionId = created.json().connectionId;
      const sheet = w.google.addSpreadsheet({
        sheets: { Leads: [["Email"], ["alice@acme.test"], ["bob@acme.test"]] },
      });
      sheet.sharedWith.add(account.client_email);
      const res = await w.h.call(key, "POST", `/v1/connections/${connectionId}/syncs`, {
        spreadsheetId: sheet.spreadsheetId,
        sheet: "Leads",
        watch: { everyMinutes: 5 },
      });
      assert.equal(res.statusCode, 202, res.body);
      const first = await waitFor(async () => {
        const found = (await passes(connectionId)).find((p) => p.syncId === res.json().syncId);
        return found?.status === "completed" ? found : undefined;
      }, "the first pass");
      assert.equal(first.counts.created, 2);
      w.google
        .sheet(sheet.spreadsheetId, "Leads")
        .rows.push(["user1@catchall.test"], ["user2@catchall.test"]);
      const next = await waitFor(async () => {
        const found = (await passes(connectionId)).find(
          (p) => p.status === "completed" && p.counts.created > 0 && p.syncId !== first.syncId,
        );
        return found;
      }, "a pass that picks up the new rows");
      assert.deepEqual(
        [next.counts.read, next.counts.created, next.counts.matched, next.counts.validated],
        [4, 2, 2, 2],
      );
      await stop(connectionId);
      const all = await passes(connectionId);
      assert.equal(
        all.reduce((n, p) => n + p.counts.created, 0),
        4,
        "no row became a lead twice",
      );
      const rows = w.google.sheet(sheet.spreadsheetId, "Leads").rows;
      assert.equal(rows[3]![1], "risky", "the new row got its verdict (catch-all)");
    });

    it("a HubSpot pass reads exactly the contacts created or changed since the previous one", {
      skip,
    }, async () => {
      const token = w.hubspot.newToken();
      const created = await w.h.call(key, "POST", "/v1/connections", {
        kind: "hubspot",
        name: "H",
        accessToken: token,
      });
      const connectionId = created.json().connectionId;
      const a = w.hubspot.addContact({ email: "alice@acme.test", firstname: "A" });
      w.hubspot.addContact({ email: "bob@acme.test" });
      const res = await w.h.call(key, "POST", `/v1/connections/${connectionId}/syncs`, {
        validate: false,
        watch: { everyMinutes: 5 },
      });
      assert.equal(res.statusCode, 202, res.body);
      const first = await waitFor(async () => {
        const found = (await passes(connectionId)).find((p) => p.syncId === res.json().syncId);
        return found?.status === "completed" ? found : undefined;
      }, "the first pass");
      assert.equal(first.counts.read, 2);
      w.hubspot.touch(a.id, { firstname: "Alice" });
      w.hubspot.addContact({ email: "carol@acme.test" });
      await waitFor(async () => {
        const found = (await passes(connectionId)).find(
          (p) => p.status === "completed" && p.counts.created > 0 && p.syncId !== first.syncId,
        );
        return found;
      }, "a pass that picks up the new contact");
      await stop(connectionId);
      const later = (await passes(connectionId)).filter((p) => p.syncId !== first.syncId);
      assert.equal(
        later.reduce((n, p) => n + p.counts.created, 0),
        1,
        "only the new contact became a lead",
      );
      assert.equal(
        later.reduce((n, p) => n + p.counts.read, 0),
        2,
        "only the changed and the new contact were read",
      );
      assert.ok(w.hubspot.calls.some((c) => c.url === "/crm/v3/objects/contacts/search"));
    });
  });
}
