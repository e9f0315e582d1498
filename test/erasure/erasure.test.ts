// Erasure through the real service on both dialects: after POST /v1/leads/{id}/erase the address
// is found in no table (nor, on SQLite, in the database file and its WAL), a tombstone and an audit
// entry remain, a second erase is the same answer, and unknown or other accounts' leads are 404.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { LEAD_VALIDATE_JOB } from "../../src/leads/validation/lead-validation.schemas.js";
import type { Database } from "../../src/storage/db.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

const EMAIL = "Erase.Me_Please@Acme.test";
const NEEDLE = EMAIL.toLowerCase();

/** Every row of every table (ours and pg-boss's), as lower-cased text, that contains `needle`. */
async function rowsContaining(database: Database, needle: string): Promise<string[]> {
  const found: string[] = [];
  if (database.kind === "sqlite") {
    const tables = database.sqlite!.prepare("select name from sqlite_master where type = 'table'").all() as {
      name: string;
    }[];
    for (const { name } of tables) {
      const rows = database.sqlite!.prepare(`select * from "${name}"`).all();
      for (const row of rows) {
        const text = JSON.stringify(row, (_k, v) =>
          Buffer.isBuffer(v) ? v.toString("latin1") : v,
        ).toLowerCase();
        if (text.includes(needle)) found.push(`${name}: ${text.slice(0, 200)}`);
      }
    }
    return found;
  }
  const tables = await sql<{ schema: string; name: string }>`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_schema in ('public', 'pgboss') and table_type = 'BASE TABLE'`.execute(database.db);
  for (const { schema, name } of tables.rows) {
    const rows = await sql<{
      t: string;
    }>`select t::text as t from ${sql.table(`${schema}.${name}`)} t`.execute(database.db);
    for (const { t } of rows.rows)
      if (t.toLowerCase().includes(needle)) found.push(`${schema}.${name}: ${t.slice(0, 200)}`);
  }
  return found;
}

for (const kind of dialects()) {
  describe(`erasure (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let apiKey: string;
    const account = "acct_erasure";
    before(async () => {
      if (skip) return;
      h = await startHarness(kind, { ...UNLIMITED_RATE_ENV, NEW_ACCOUNT_MILLI_CREDITS: "100000" });
      apiKey = await h.apiKey(account);
    });
    after(async () => h?.close());

    it("leaves the address in no table, file or WAL, and keeps a tombstone and an audit entry", {
      skip,
    }, async () => {
      const created = await h.call(apiKey, "POST", "/v1/leads", {
        email: EMAIL,
        firstName: "Erin",
        company: "Acme",
      });
      assert.equal(created.statusCode, 201, created.body);
      const leadId: string = created.json().id;
      const other = await h.call(apiKey, "POST", "/v1/leads", { email: "keep.me@acme.test" });
      assert.equal(other.statusCode, 201);
      await h.services.searchIndexer?.catchUp();
      const { db } = h.services.database;
      const now = new Date().toISOString();
      // Every other place the person's data travels to, as the real writers store it.
      await db
        .insertInto("batches")
        .values({
          id: "batch_erase",
          account_id: account,
          kind: "lead_validation",
          status: "completed",
          total: 1,
          completed: 1,
          valid: 1,
          invalid: 0,
          failed: 0,
          progress_quarter: 0,
          webhook_url: null,
          source: null,
          created_at: now,
          started_at: now,
          completed_at: now,
        })
        .execute();
      await db
        .insertInto("batch_items")
        .values({
          id: "item_erase",
          batch_id: "batch_erase",
          account_id: account,
          seq: 0,
          lead_id: leadId,
          input: EMAIL,
          group_key: "acme.test",
          status: "done",
          verdict: "valid",
          result: JSON.stringify({ email: EMAIL, score: 90 }),
          error: null,
          completed_at: now,
        })
        .execute();
      await db
        .insertInto("webhooks")
        .values({
          id: "wh_erase",
          account_id: account,
          name: "crm",
          url: "http://127.0.0.1:9/",
          description: null,
          events: "[]",
          active: 1,
          secret: "whsec_x",
          max_retries: 0,
          retry_delays: "[]",
          total_attempts: 0,
          successful_deliveries: 0,
          failed_deliveries: 0,
          last_delivery_at: null,
          last_success_at: null,
          secret_rotated_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await db
        .insertInto("webhook_deliveries")
        .values({
          id: "dlv_erase",
          webhook_id: "wh_erase",
          account_id: account,
          event_id: "evt_x",
          event: "lead.validated",
          url: "http://127.0.0.1:9/",
          payload: JSON.stringify({ data: { leadId } }),
          status: "success",
          http_status: 200,
          response_body: `received ${EMAIL}`,
          error_message: null,
          attempts: 1,
          attempt_log: "[]",
          is_test: 0,
          redelivery_of: null,
          next_attempt_at: null,
          delivered_at: now,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await db
        .insertInto("validation_jobs")
        .values({
          id: "job_erase",
          account_id: account,
          type: "email",
          input: EMAIL,
          status: "completed",
          result: JSON.stringify({ email: EMAIL }),
          error: null,
          webhook_url: null,
          attempts: 1,
          created_at: now,
          completed_at: now,
          deadline_at: now,
          expires_at: now,
        })
        .execute();
      await h.services.queue.send(LEAD_VALIDATE_JOB, { accountId: account, leadId });
      assert.notDeepEqual(await rowsContaining(h.services.database, NEEDLE), []);

      const erased = await h.call(apiKey, "POST", `/v1/leads/${leadId}/erase`);
      assert.equal(erased.statusCode, 200, erased.body);
      const body = erased.json();
      assert.equal(body.already_erased, false);
      assert.equal(body.removed.leads, 1);
      assert.equal(body.removed.batch_items, 1);
      assert.equal(body.removed.webhook_deliveries, 1);
      assert.equal(body.removed.validation_jobs, 1);
      assert.ok(body.removed.events >= 1);
      assert.ok(body.removed.job_payloads >= 1);

      assert.deepEqual(await rowsContaining(h.services.database, NEEDLE), []);
      assert.deepEqual(
        await rowsContaining(h.services.database, leadId.toLowerCase()).then((rows) =>
          // The tombstone and the audit entry name the id by design; the credit ledger keeps it as the
          // reference of a charge (a financial record, pointing at nothing once the lead is gone).
          rows.filter((row) => !/erasure_tombstones|audit_entries|credit_ledger/.test(row)),
        ),
        [],
      );
      if (kind === "sqlite") {
        const path = h.services.database.sqlitePath!;
        for (const file of [path, `${path}-wal`]) {
          let bytes: Buffer;
          try {
            bytes = readFileSync(file);
          } catch {
            continue;
          }
          assert.equal(
            bytes.toString("latin1").toLowerCase().includes(NEEDLE),
            false,
            `${file} still holds the address`,
          );
        }
        const hits = h.services.database
          .sqlite!.prepare("select count(*) as n from leads_search where leads_search match ?")
          .get('"erase.me"') as { n: number };
        assert.equal(hits.n, 0);
      }
      const kept = await h.call(apiKey, "GET", `/v1/leads/${other.json().id}`);
      assert.equal(kept.statusCode, 200);
      const tombstone = await db
        .selectFrom("erasure_tombstones")
        .selectAll()
        .where("lead_id", "=", leadId)
        .executeTakeFirstOrThrow();
      assert.match(String(tombstone.email_hmac), /^[0-9a-f]{64}$/);
      const log = await h.call(apiKey, "GET", `/v1/audit-log?action=lead.erased&target=${leadId}`);
      assert.equal(log.json().entries.length, 1);

      const again = await h.call(apiKey, "POST", `/v1/leads/${leadId}/erase`);
      assert.equal(again.statusCode, 200);
      assert.deepEqual(again.json(), {
        lead_id: leadId,
        erased_at: body.erased_at,
        already_erased: true,
        removed: null,
      });
    });

    it("answers 404 for a lead that never existed and for another account's lead", { skip }, async () => {
      const missing = await h.call(apiKey, "POST", "/v1/leads/lead_01nothinghere000000000000/erase");
      assert.equal(missing.statusCode, 404);
      const otherKey = await h.apiKey("acct_erasure_other");
      const theirs = await h.call(otherKey, "POST", "/v1/leads", { email: "theirs@acme.test" });
      const attempt = await h.call(apiKey, "POST", `/v1/leads/${theirs.json().id}/erase`);
      assert.equal(attempt.statusCode, 404);
      assert.equal((await h.call(otherKey, "GET", `/v1/leads/${theirs.json().id}`)).statusCode, 200);
    });
  });
}
