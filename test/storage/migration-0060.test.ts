// Migration 0060 on a database that already holds accounts: each account's own identity (the
// account id is the subject that created it) becomes its owner, so today's users keep every right.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Migrator, sql } from "kysely";
import { openDatabase } from "../../src/storage/db.js";
import { migrations } from "../../src/storage/migrations/index.js";
import { createEmptyDatabase, dialects, skipReasonFor } from "../support/db.js";

for (const kind of dialects()) {
  describe(`migration 0060-teams (${kind})`, async () => {
    const skip = await skipReasonFor(kind);

    it("makes every existing account's identity its owner", { skip }, async () => {
      const empty = await createEmptyDatabase(kind);
      const database = openDatabase(empty.url, { maxConnections: 2 });
      try {
        const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0060"));
        const upTo = new Migrator({ db: database.db, provider: { getMigrations: async () => before } });
        assert.equal((await upTo.migrateToLatest()).error, undefined);
        for (const id of ["acct_a", "user|b"]) {
          await sql`insert into accounts (id, balance_milli, created_at, updated_at)
            values (${id}, 2000, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`.execute(database.db);
        }
        const all = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
        assert.equal((await all.migrateToLatest()).error, undefined);
        const rows = await sql<{
          account_id: string;
          subject: string;
          role: string;
          removed_at: string | null;
        }>`
          select account_id, subject, role, removed_at from team_members order by account_id`.execute(
          database.db,
        );
        assert.deepEqual(rows.rows, [
          { account_id: "acct_a", subject: "acct_a", role: "owner", removed_at: null },
          { account_id: "user|b", subject: "user|b", role: "owner", removed_at: null },
        ]);
      } finally {
        await database.close();
        await empty.drop();
      }
    });
  });
}
