// Migration 0008 on a database that already holds leads: every row gets its normalized_email
// (provider aliases folded), and the duplicate check's index exists.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Migrator, sql } from "kysely";
import { openDatabase } from "../../src/storage/db.js";
import { migrations } from "../../src/storage/migrations/index.js";
import { createEmptyDatabase, dialects, skipReasonFor } from "../support/db.js";

for (const kind of dialects()) {
  describe(`migration 0008-domain-intel (${kind})`, async () => {
    const skip = await skipReasonFor(kind);

    it("backfills normalized_email on existing leads and indexes it", { skip }, async () => {
      const empty = await createEmptyDatabase(kind);
      const database = openDatabase(empty.url, { maxConnections: 2 });
      try {
        const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0008"));
        const upTo = new Migrator({ db: database.db, provider: { getMigrations: async () => before } });
        assert.equal((await upTo.migrateToLatest()).error, undefined);
        const emails = ["J.Doe+crm@gmail.com", "jane@googlemail.com", "sales+eu@acme.test", "Bob@Acme.test"];
        for (const [i, email] of emails.entries()) {
          await sql`insert into leads (id, account_id, email, email_lower, tags, priority, active, custom_fields,
            source, metadata, validation_status, rating, recommendation, quality, rating_factors, created_at, updated_at)
            values (${`lead_${i}`}, 'acct', ${email}, ${email.toLowerCase()}, '[]', 'normal', 1, '{}', 'api', '{}',
            'new', 0, 'skip', 'poor', '[]', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`.execute(
            database.db,
          );
        }
        const all = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
        assert.equal((await all.migrateToLatest()).error, undefined);
        const rows = await database.db
          .selectFrom("leads")
          .select(["id", "normalized_email", "domain_age_days", "domain_intel"])
          .orderBy("id")
          .execute();
        assert.deepEqual(
          rows.map((r) => r.normalized_email),
          ["jdoe@gmail.com", "jane@gmail.com", "sales+eu@acme.test", "bob@acme.test"],
        );
        assert.ok(rows.every((r) => r.domain_age_days === null && r.domain_intel === null));
        const index =
          kind === "sqlite"
            ? await sql<{
                name: string;
              }>`select name from sqlite_master where type = 'index' and name = 'leads_account_normalized_email_idx'`.execute(
                database.db,
              )
            : await sql<{
                name: string;
              }>`select indexname as name from pg_indexes where indexname = 'leads_account_normalized_email_idx'`.execute(
                database.db,
              );
        assert.equal(index.rows.length, 1);
      } finally {
        await database.close();
        await empty.drop();
      }
    });
  });
}
