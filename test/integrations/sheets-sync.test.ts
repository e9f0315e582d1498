// Google Sheets syncs end to end on both dialects: the official client against the fake Sheets
// API, real validation against the fake internet, and write-back that touches our columns only.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { dialects, skipReasonFor } from "../support/db.js";
import { finishedSync, type SyncWorld, startSyncWorld } from "./sync-support.js";

const OURS = [
  "leadcheck_status",
  "leadcheck_reason",
  "leadcheck_score",
  "leadcheck_recommendation",
  "leadcheck_verified_at",
];

for (const kind of dialects()) {
  describe(`Google Sheets sync (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let w: SyncWorld;
    let key: string;
    let connectionId: string;
    let clientEmail: string;

    before(async () => {
      if (skip) return;
      w = await startSyncWorld(kind);
      key = await w.h.apiKey("acct_sheets");
      const account = w.google.newServiceAccount();
      clientEmail = account.client_email;
      const res = await w.h.call(key, "POST", "/v1/connections", {
        kind: "google_sheets",
        name: "Sheets",
        serviceAccount: account,
      });
      assert.equal(res.statusCode, 201, res.body);
      connectionId = res.json().connectionId;
    });
    after(async () => {
      if (!skip) await w.close();
    });

    const sheetFor = (rows: string[][], title = "Leads") => {
      const spreadsheet = w.google.addSpreadsheet({ sheets: { [title]: rows } });
      spreadsheet.sharedWith.add(clientEmail);
      return spreadsheet;
    };
    const startSync = async (body: Record<string, unknown>) => {
      const res = await w.h.call(key, "POST", `/v1/connections/${connectionId}/syncs`, body);
      assert.equal(res.statusCode, 202, res.body);
      return finishedSync(w.h, key, res.json().syncId);
    };

    it("maps a German header, validates the rows as one batch and writes only our five columns", {
      skip,
    }, async () => {
      const sheet = sheetFor([
        ["Vorname", "E-Mail", "Firma", "Notizen", ""],
        ["Alice", "alice@acme.test", "Acme", "call back"],
        ["Nobody", "nobody@acme.test", "", ""],
        ["", "", "no email here", ""],
      ]);
      const sync = await startSync({ spreadsheetId: sheet.spreadsheetId, sheet: "Leads" });
      assert.equal(sync.status, "completed", JSON.stringify(sync));
      assert.deepEqual(
        {
          read: sync.counts.read,
          created: sync.counts.created,
          validated: sync.counts.validated,
          written: sync.counts.written,
        },
        { read: 2, created: 2, validated: 2, written: 2 },
      );
      assert.match(sync.batchId, /^batch_/);
      const rows = w.google.sheet(sheet.spreadsheetId, "Leads").rows;
      assert.deepEqual(rows[0], ["Vorname", "E-Mail", "Firma", "Notizen", ...OURS]);
      assert.deepEqual(rows[1]!.slice(0, 4), ["Alice", "alice@acme.test", "Acme", "call back"]);
      assert.equal(rows[1]![4], "valid");
      assert.equal(rows[2]![4], "invalid");
      assert.deepEqual(rows[3], ["", "", "no email here", ""], "a row without a lead is not touched");
      const written = w.google.writes.filter((x) => x.spreadsheetId === sheet.spreadsheetId);
      assert.ok(
        written.every((x) => x.column >= 4),
        "no cell outside our columns was written",
      );
      assert.ok(
        written.every((x) => x.value !== ""),
        "no empty value was written",
      );
      const batchUpdates = w.google.batchUpdates.filter((b) => b.spreadsheetId === sheet.spreadsheetId);
      assert.equal(batchUpdates.length, 1, "one values.batchUpdate for the chunk");
      const leads = (await w.h.call(key, "GET", "/v1/leads?source=google_sheets")).json().leads;
      const alice = leads.find((l: { email: string }) => l.email === "alice@acme.test");
      assert.equal(alice.externalSource, "google_sheets");
      assert.equal(alice.externalId, `${sheet.spreadsheetId}!Leads`);
      assert.ok(alice.syncedAt);
      const events = await sql<{
        type: string;
      }>`select type from events where type = 'sync.completed'`.execute(w.h.services.database.db);
      assert.ok(events.rows.length >= 1);
    });

    it("finds a moved column by header and follows rows sorted between the read and the write", {
      skip,
    }, async () => {
      const sheet = sheetFor([
        ["leadcheck_status", "Email Address", "Name"],
        ["", "alice@acme.test", "A"],
        ["", "bob@acme.test", "B"],
        ["", "nobody@acme.test", "N"],
      ]);
      let sorted = false;
      w.google.afterValuesGet = (id) => {
        if (id !== sheet.spreadsheetId || sorted) return;
        sorted = true;
        const rows = w.google.sheet(id, "Leads").rows;
        rows.splice(1, 3, rows[3]!, rows[1]!, rows[2]!);
      };
      try {
        const sync = await startSync({ spreadsheetId: sheet.spreadsheetId, sheet: "Leads" });
        assert.equal(sync.status, "completed", JSON.stringify(sync));
      } finally {
        w.google.afterValuesGet = undefined;
      }
      const rows = w.google.sheet(sheet.spreadsheetId, "Leads").rows;
      assert.deepEqual(rows[0], ["leadcheck_status", "Email Address", "Name", ...OURS.slice(1)]);
      const statusOf = new Map(rows.slice(1).map((r) => [r[1], r[0]]));
      assert.equal(statusOf.get("nobody@acme.test"), "invalid");
      assert.equal(statusOf.get("alice@acme.test"), "valid");
      assert.equal(statusOf.get("bob@acme.test"), "valid");
    });

    it("matches an existing lead by email instead of creating a second one", { skip }, async () => {
      const sheet = sheetFor([["email"], ["ALICE@acme.test"]]);
      const sync = await startSync({ spreadsheetId: sheet.spreadsheetId, sheet: "Leads", validate: false });
      assert.equal(sync.status, "completed", JSON.stringify(sync));
      assert.equal(sync.counts.matched, 1);
      assert.equal(sync.counts.created, 0);
      assert.equal(
        w.google.sheet(sheet.spreadsheetId, "Leads").rows[1]![1],
        "valid",
        "its verdict is written back",
      );
    });

    it("a retry of the validate step after its batch started charges no second batch", { skip }, async () => {
      const sheet = sheetFor([["email"], ["dave@grey.test"]]);
      const first = await startSync({ spreadsheetId: sheet.spreadsheetId, sheet: "Leads", writeBack: false });
      assert.equal(first.status, "completed", JSON.stringify(first));
      const { db } = w.h.services.database;
      const balance = async () => (await w.h.call(key, "GET", "/v1/credits")).json().credits;
      const before = await balance();
      // As if the attempt died after starting the batch and before recording it: back to validate.
      await sql`update syncs set status = 'running', phase = 'validate', batch_id = null, completed_at = null where id = ${first.syncId}`.execute(
        db,
      );
      await w.h.services.queue.send("integrations.sync", { syncId: first.syncId });
      const again = await finishedSync(w.h, key, first.syncId);
      assert.equal(again.status, "completed", JSON.stringify(again));
      assert.equal(again.batchId, first.batchId, "the batch it had started is found again");
      const batches = await sql<{
        n: number;
      }>`select count(*) as n from batches where source = ${`sync:${first.syncId}`}`.execute(db);
      assert.equal(Number(batches.rows[0]!.n), 1);
      assert.equal(await balance(), before, "nothing charged twice");
    });

    it("rides out a 429 storm from Google's per-user quota", { skip }, async () => {
      const sheet = sheetFor([["email"], ["carol@acme.test"]]);
      // A burst of quota refusals on the reads and the write, then service again.
      w.google.failures.push({ status: 429, remaining: 4, match: /values/ });
      const sync = await startSync({ spreadsheetId: sheet.spreadsheetId, sheet: "Leads", validate: false });
      assert.equal(sync.status, "completed", JSON.stringify(sync));
      assert.equal(sync.counts.written, 1);
      const refused = w.google.calls.filter((c) => c.status === 429 && c.url.includes(sheet.spreadsheetId));
      assert.equal(refused.length, 4, "the fake answered 429 four times");
    });

    it("ends failed with the reason for a deleted spreadsheet", { skip }, async () => {
      const sheet = sheetFor([["email"], ["alice@acme.test"]]);
      w.google.spreadsheets.delete(sheet.spreadsheetId);
      const sync = await startSync({ spreadsheetId: sheet.spreadsheetId, sheet: "Leads" });
      assert.equal(sync.status, "failed");
      assert.match(sync.failureReason, /not found/);
      const connection = (await w.h.call(key, "GET", `/v1/connections/${connectionId}`)).json();
      assert.equal(connection.status, "active");
    });

    it("a revoked key sets the connection to needs_reauth and fails the sync with the reason", {
      skip,
    }, async () => {
      const sheet = sheetFor([["email"], ["alice@acme.test"]]);
      w.google.revoke(clientEmail);
      const sync = await startSync({ spreadsheetId: sheet.spreadsheetId, sheet: "Leads" });
      assert.equal(sync.status, "failed");
      assert.match(sync.failureReason, /refused|credentials/i);
      const connection = (await w.h.call(key, "GET", `/v1/connections/${connectionId}`)).json();
      assert.equal(connection.status, "needs_reauth");
      const again = await w.h.call(key, "POST", `/v1/connections/${connectionId}/syncs`, {
        spreadsheetId: sheet.spreadsheetId,
        sheet: "Leads",
      });
      assert.equal(again.statusCode, 409);
    });
  });
}
