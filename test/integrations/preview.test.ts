// The mapping preview on both dialects: a sheet's tabs, detected mapping (French header), first 5
// rows and exact cost against the account's leads; HubSpot's first 5 contacts and an upper-bound
// cost; failures in the error shape. Nothing is written to the source or to leads.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type SyncWorld, startSyncWorld } from "./sync-support.js";

for (const kind of dialects()) {
  describe(`sync preview (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let w: SyncWorld;
    let key: string;
    let sheetsId: string;
    let hubspotId: string;
    let clientEmail: string;

    before(async () => {
      if (skip) return;
      w = await startSyncWorld(kind);
      key = await w.h.apiKey("acct_preview");
      const account = w.google.newServiceAccount();
      clientEmail = account.client_email;
      const sheets = await w.h.call(key, "POST", "/v1/connections", {
        kind: "google_sheets",
        name: "Sheets",
        serviceAccount: account,
      });
      sheetsId = sheets.json().connectionId;
      const hubspot = await w.h.call(key, "POST", "/v1/connections", {
        kind: "hubspot",
        name: "CRM",
        accessToken: w.hubspot.newToken(),
      });
      hubspotId = hubspot.json().connectionId;
    });
    after(async () => {
      if (!skip) await w.close();
    });
    const preview = (connectionId: string, body: Record<string, unknown>) =>
      w.h.call(key, "POST", `/v1/connections/${connectionId}/preview`, body);

    it("shows a sheet's tabs, the detected mapping, the first 5 rows and the exact cost, and writes nothing", {
      skip,
    }, async () => {
      // Two mailboxes the account already has: one validated (not charged again), one never validated.
      const known = await w.h.call(key, "POST", "/v1/leads", {
        email: "known@catchall.test",
        validate: false,
      });
      await w.h.services.database.db
        .updateTable("leads")
        .set({ validation_status: "valid", validated_at: new Date().toISOString() })
        .where("id", "=", known.json().id)
        .execute();
      await w.h.call(key, "POST", "/v1/leads", { email: "pending@catchall.test", validate: false });
      const leadsBefore = (await w.h.call(key, "GET", "/v1/leads?limit=1")).json().total;
      const spreadsheet = w.google.addSpreadsheet({
        sheets: {
          Prospects: [
            ["Prénom", "Courriel", "Société", "Site web", "Remarques"],
            ["Anne", "anne@catchall.test", "Acme", "acme.test", "x"],
            ["Bruno", "known@catchall.test", "", "", ""],
            ["Chloé", "pending@catchall.test", "", "", ""],
            ["Denis", "denis@catchall.test", "", "", ""],
            ["Eve", "eve@catchall.test", "", "", ""],
            ["Fabien", "fabien@catchall.test", "", "", ""],
            ["Doublon", "ANNE@catchall.test", "", "", ""],
            ["Sans email", "", "Firma", "", ""],
            ["", "", "", "", ""],
          ],
          Archive: [["email"], ["old@catchall.test"]],
        },
      });
      spreadsheet.sharedWith.add(clientEmail);
      const res = await preview(sheetsId, { spreadsheetId: spreadsheet.spreadsheetId });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(body.sheets, ["Prospects", "Archive"]);
      assert.equal(body.sheet, "Prospects", "the first tab when none is named");
      assert.deepEqual(body.mapping, {
        email: "Courriel",
        website: "Site web",
        firstName: "Prénom",
        lastName: null,
        company: "Société",
        title: null,
        phone: null,
      });
      assert.equal(body.rows.length, 5);
      assert.deepEqual(body.rows[0], {
        item: "row 2",
        lead: { firstName: "Anne", email: "anne@catchall.test", company: "Acme", website: "acme.test" },
      });
      assert.equal(body.total, 7, "rows with an email");
      // anne, denis, eve, fabien created; known and pending matched; the second ANNE skipped;
      // the row without an email skipped; the empty row is not a row.
      assert.deepEqual(body.plan, { created: 4, matched: 2, skipped: 2 });
      assert.deepEqual(body.cost, { leads: 5, credits: 0.01, displayCredits: 10, basis: "exact" });
      assert.equal(w.google.writes.length, 0);
      assert.equal((await w.h.call(key, "GET", "/v1/leads?limit=1")).json().total, leadsBefore);

      const other = await preview(sheetsId, {
        spreadsheetId: spreadsheet.spreadsheetId,
        sheet: "Archive",
        mapping: { email: "email" },
      });
      assert.equal(other.statusCode, 200, other.body);
      assert.equal(other.json().total, 1);
    });

    it("refuses an unknown tab, an unshared sheet and the wrong fields in the error shape", {
      skip,
    }, async () => {
      const spreadsheet = w.google.addSpreadsheet({ sheets: { Leads: [["email"], ["a@catchall.test"]] } });
      const unshared = await preview(sheetsId, { spreadsheetId: spreadsheet.spreadsheetId });
      assert.equal(unshared.statusCode, 422, unshared.body);
      assert.match(unshared.json().message, new RegExp(`not shared with ${clientEmail}`));
      spreadsheet.sharedWith.add(clientEmail);
      const tab = await preview(sheetsId, { spreadsheetId: spreadsheet.spreadsheetId, sheet: "Nope" });
      assert.equal(tab.statusCode, 422, tab.body);
      assert.match(tab.json().message, /no tab named Nope/);
      const missing = await preview(sheetsId, {});
      assert.equal(missing.statusCode, 422, missing.body);
      assert.equal(missing.json().details.errors[0].field, "spreadsheetId");
      const wrongKind = await preview(hubspotId, { spreadsheetId: spreadsheet.spreadsheetId });
      assert.equal(wrongKind.statusCode, 422, wrongKind.body);
      const unknown = await preview("con_unknown", { listId: "1" });
      assert.equal(unknown.statusCode, 404, unknown.body);
    });

    it("shows HubSpot's first 5 contacts with their count and an upper-bound cost, for all contacts and a list", {
      skip,
    }, async () => {
      const ids: string[] = [];
      for (let i = 0; i < 7; i++)
        ids.push(
          w.hubspot.addContact({ email: `c${i}@catchall.test`, firstname: `C${i}`, jobtitle: "CTO" }).id,
        );
      w.hubspot.lists.set("77", ids.slice(0, 3));
      const all = await preview(hubspotId, {});
      assert.equal(all.statusCode, 200, all.body);
      const body = all.json();
      assert.equal(body.total, 7);
      assert.equal(body.rows.length, 5);
      assert.deepEqual(body.rows[0], {
        item: `contact ${ids[0]}`,
        lead: { email: "c0@catchall.test", firstName: "C0", title: "CTO" },
      });
      assert.equal(body.mapping.title, "jobtitle");
      assert.deepEqual(body.cost, { leads: 7, credits: 0.014, displayCredits: 14, basis: "at_most" });
      const list = await preview(hubspotId, { listId: "77" });
      assert.equal(list.statusCode, 200, list.body);
      assert.equal(list.json().total, 3);
      assert.deepEqual(
        list.json().rows.map((r: { item: string }) => r.item),
        ids.slice(0, 3).map((id) => `contact ${id}`),
      );
      const gone = await preview(hubspotId, { listId: "404" });
      assert.equal(gone.statusCode, 422, gone.body);
      assert.equal(w.hubspot.writes.length, 0);
    });
  });
}
