// A sync whose worker process is SIGKILLed mid-pass is resumed by a new worker, on both dialects.
// The service's API runs in the test; syncs run in `leadcheck worker` subprocesses on the same
// database. The fakes kill the worker at the worst moment: a write has taken effect in the sheet
// or in HubSpot, and the worker dies before it hears the answer (so it never recorded it). Then
// the sheet is sorted, and a new worker takes the job over once its attempt expires. Every row
// and contact must hold its own verdict, written exactly once, no write may land on another
// lead's row, and nothing but our columns and properties may change.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import type { VerdictCells } from "../../src/integrations/sheet-write-plan.js";
import { hubspotProperties, verdictCells } from "../../src/integrations/sync-verdicts.js";
import type { LeadView } from "../../src/leads/leads.schemas.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { TEST_ADMIN_TOKEN, TEST_JWT_SECRET } from "../support/harness.js";
import { freePort, type Proc, startProcess, waitHealthy } from "../support/process.js";
import { within } from "../support/wait-for.js";
import { finishedSync, type SyncWorld, startSyncWorld } from "./sync-support.js";

const OURS = [
  "leadcheck_status",
  "leadcheck_reason",
  "leadcheck_score",
  "leadcheck_recommendation",
  "leadcheck_verified_at",
];

/** Mailboxes the fake internet answers differently: unknown at acme.test, accepted at catchall.test. */
const emailFor = (i: number) => (i % 2 === 0 ? `lead${i}@acme.test` : `x${i}@catchall.test`);

for (const kind of dialects()) {
  describe(`a sync resumed after its worker is SIGKILLed (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let w: SyncWorld;
    let dir: string;
    let workerEnv: Record<string, string>;
    const workers: Proc[] = [];

    before(async () => {
      if (skip) return;
      // A killed worker's sync attempt is taken over 3 s after it started (the API that enqueues
      // the first job and the workers that claim it all take the expiry).
      w = await startSyncWorld(kind, { JOB_EXPIRY_MS: "integrations.sync=3000" }, { workers: false });
      dir = mkdtempSync(join(tmpdir(), "leadcheck-sync-kill-"));
      const caFile = join(dir, "test-ca.pem");
      writeFileSync(caFile, w.net.ca);
      workerEnv = {
        ...w.env,
        DATABASE_URL: w.h.testDb.url,
        AUTH_JWT_SECRET: TEST_JWT_SECRET,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        NODE_EXTRA_CA_CERTS: caFile,
        JOB_POLL_INTERVAL_MS: "50",
        JOB_MAINTENANCE_INTERVAL_MS: "500",
        SYNC_SHEET_WRITE_ROWS: "20",
      };
    });
    const stopWorkers = async () => {
      for (const proc of workers) if (proc.child.exitCode === null) proc.child.kill("SIGKILL");
      await Promise.all(workers.splice(0).map((p) => p.exitCode()));
    };
    // Each test starts its own workers: none may take the next test's sync.
    afterEach(stopWorkers);
    after(async () => {
      if (skip) return;
      await stopWorkers();
      await w.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function startWorker(): Promise<Proc> {
      const port = await freePort();
      const proc = startProcess(["worker"], { ...workerEnv, WORKER_PORT: String(port) });
      workers.push(proc);
      await waitHealthy(port, proc);
      return proc;
    }

    /** SIGKILLs `proc` when the `nth` call matching `match` has taken effect, before its answer. */
    function killOn(
      fake: { beforeReply?: (method: string, path: string) => Promise<void> | void },
      match: RegExp,
      nth: number,
      proc: Proc,
    ): Promise<void> {
      let seen = 0;
      const killed = new Promise<void>((resolve) => {
        fake.beforeReply = async (method, path) => {
          if (!match.test(`${method} ${path}`) || ++seen !== nth) return;
          fake.beforeReply = undefined;
          proc.child.kill("SIGKILL");
          await proc.exitCode();
          resolve();
        };
      });
      return within(killed, `the kill at call ${nth} of ${match}`, 90_000);
    }

    async function leadsOf(accountId: string): Promise<Map<string, LeadView>> {
      const { db } = w.h.services.database;
      const rows = await db.selectFrom("leads").select("id").where("account_id", "=", accountId).execute();
      const leads = await w.h.services.leads.getMany(
        accountId,
        rows.map((r) => r.id),
      );
      return new Map(leads.map((lead) => [lead.email.toLowerCase(), lead]));
    }

    it("writes every sheet row's verdict exactly once, to its own row, after a kill mid-write and a sort", {
      skip,
    }, async () => {
      const account = `acct_kill_sheets_${kind}`;
      const key = await w.h.apiKey(account);
      const serviceAccount = w.google.newServiceAccount();
      const connection = await w.h.call(key, "POST", "/v1/connections", {
        kind: "google_sheets",
        name: "Sheets",
        serviceAccount,
      });
      assert.equal(connection.statusCode, 201, connection.body);
      const ROWS = 70;
      const original = [
        ["Ref", "Name", "Email", "Notes"],
        ...Array.from({ length: ROWS }, (_, i) => [`r${i}`, `Name ${i}`, emailFor(i), i % 3 ? "keep" : ""]),
      ];
      const spreadsheet = w.google.addSpreadsheet({ sheets: { Leads: original } });
      spreadsheet.sharedWith.add(serviceAccount.client_email);
      const sheet = w.google.sheet(spreadsheet.spreadsheetId, "Leads");

      const first = await startWorker();
      // The second chunk of 20 rows lands in the sheet; its worker dies before it hears so.
      const killed = killOn(w.google, /^POST .*values:batchUpdate$/, 2, first);
      const started = await w.h.call(key, "POST", `/v1/connections/${connection.json().connectionId}/syncs`, {
        spreadsheetId: spreadsheet.spreadsheetId,
        sheet: "Leads",
      });
      assert.equal(started.statusCode, 202, started.body);
      await killed;
      const writtenBeforeKill = new Set(w.google.writes.filter((c) => c.row > 0).map((c) => c.rowBefore[0]));
      assert.equal(
        writtenBeforeKill.size,
        40,
        "two chunks of 20 rows were in the sheet when the worker died",
      );
      // The user sorts the sheet (by name, descending) while no worker runs.
      const data = sheet.rows.slice(1).sort((a, b) => (b[1] ?? "").localeCompare(a[1] ?? ""));
      sheet.rows.splice(1, data.length, ...data);

      await startWorker();
      const sync = await finishedSync(w.h, key, started.json().syncId, 120_000);
      assert.equal(sync.status, "completed", JSON.stringify(sync));
      assert.deepEqual(
        { read: sync.counts.read, created: sync.counts.created, written: sync.counts.written },
        { read: ROWS, created: ROWS, written: ROWS },
      );

      const leads = await leadsOf(account);
      const header = sheet.rows[0]!;
      assert.deepEqual(header, ["Ref", "Name", "Email", "Notes", ...OURS]);
      const ourColumns = new Set(OURS.map((name) => header.indexOf(name)));
      // Every row holds its own lead's verdict.
      for (const row of sheet.rows.slice(1)) {
        const lead = leads.get(row[2]!.toLowerCase());
        assert.ok(lead, `a lead for ${row[2]}`);
        assert.deepEqual(row.slice(4, 9), verdictCells(lead), `the verdict in ${row[0]}'s row`);
      }
      // Each row was written by exactly one batchUpdate, only in our columns, and every cell
      // written carried the verdict of the lead whose row it was at that moment.
      const batchesByRow = new Map<string, Set<number>>();
      for (const cell of w.google.writes.filter((c) => c.spreadsheetId === spreadsheet.spreadsheetId)) {
        assert.ok(ourColumns.has(cell.column), `write in column ${cell.column} of row ${cell.row}`);
        if (cell.row === 0) {
          assert.ok(OURS.includes(cell.value), `header cell ${cell.value}`);
          continue;
        }
        const [ref, , email] = cell.rowBefore;
        const expected = verdictCells(leads.get(email!.toLowerCase())!) as VerdictCells;
        assert.equal(cell.value, expected[OURS.indexOf(header[cell.column]!)], `cell of ${ref}`);
        batchesByRow.set(ref!, (batchesByRow.get(ref!) ?? new Set()).add(cell.batch));
      }
      assert.equal(batchesByRow.size, ROWS, "every row was written");
      for (const [ref, batches] of batchesByRow) assert.equal(batches.size, 1, `${ref} written once`);
      // Nothing but our columns changed: the user's four columns hold the same rows as before.
      const userCells = (rows: string[][]) =>
        rows
          .slice(1)
          .map((row) => [0, 1, 2, 3].map((c) => row[c] ?? "").join("\t"))
          .sort();
      assert.deepEqual(userCells(sheet.rows), userCells(original));
    });

    it("writes every contact's verdict exactly once after kills mid-import and mid-write", {
      skip,
    }, async () => {
      const account = `acct_kill_hubspot_${kind}`;
      const key = await w.h.apiKey(account);
      const token = w.hubspot.newToken();
      const connection = await w.h.call(key, "POST", "/v1/connections", {
        kind: "hubspot",
        name: "HubSpot",
        accessToken: token,
      });
      assert.equal(connection.statusCode, 201, connection.body);
      const CONTACTS = 250;
      const contacts = Array.from({ length: CONTACTS }, (_, i) =>
        w.hubspot.addContact({
          email: emailFor(i),
          firstname: `First ${i}`,
          company: i % 4 ? "Acme" : "",
        }),
      );
      const before = new Map(contacts.map((c) => [c.id, { ...c.properties }]));
      const start = w.hubspot.writes.length;

      const first = await startWorker();
      // The import dies after the second page of 100 contacts is answered but not yet stored.
      const killedInImport = killOn(w.hubspot, /^GET \/crm\/v3\/objects\/contacts$/, 2, first);
      const started = await w.h.call(
        key,
        "POST",
        `/v1/connections/${connection.json().connectionId}/syncs`,
        {},
      );
      assert.equal(started.statusCode, 202, started.body);
      await killedInImport;
      const second = await startWorker();
      // The write dies after the second batch of 100 has been applied in HubSpot.
      await killOn(w.hubspot, /^POST \/crm\/v3\/objects\/contacts\/batch\/update$/, 2, second);
      await startWorker();
      const sync = await finishedSync(w.h, key, started.json().syncId, 120_000);
      assert.equal(sync.status, "completed", JSON.stringify(sync));
      assert.deepEqual(
        { read: sync.counts.read, created: sync.counts.created, written: sync.counts.written },
        { read: CONTACTS, created: CONTACTS, written: CONTACTS },
        JSON.stringify(sync.counts),
      );

      const leads = await leadsOf(account);
      const writes = w.hubspot.writes.slice(start);
      for (const write of writes) assert.ok(OURS.includes(write.property), `wrote ${write.property}`);
      for (const contact of contacts) {
        const lead = leads.get(contact.properties.email!.toLowerCase());
        assert.ok(lead, `a lead for contact ${contact.id}`);
        const expected = hubspotProperties(lead);
        const mine = writes.filter((x) => x.contactId === contact.id);
        assert.equal(
          mine.filter((x) => x.property === "leadcheck_status").length,
          1,
          `contact ${contact.id} written once`,
        );
        for (const write of mine) assert.equal(write.value, expected[write.property], `${contact.id}`);
        const now = w.hubspot.contacts.get(contact.id)!.properties;
        const was = before.get(contact.id)!;
        for (const [name, value] of Object.entries(was)) {
          if (OURS.includes(name) || name === "lastmodifieddate") continue;
          assert.equal(now[name], value, `contact ${contact.id}'s ${name} untouched`);
        }
        for (const name of OURS) assert.equal(now[name], expected[name]);
        assert.equal(
          lead.externalUrl,
          `https://app.hubspot.com/contacts/${connection.json().portalId}/record/0-1/${contact.id}`,
          "the lead links to its contact in the portal read at connect time",
        );
      }
    });
  });
}
