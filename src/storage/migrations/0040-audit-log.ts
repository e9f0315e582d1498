import type { Kysely } from "kysely";

// The audit log (docs/decisions/0040): append-only entries hash-chained per account. The chain head
// row is updated in the entry's transaction, so concurrent appends to one account serialize on it
// (a row lock on PostgreSQL, the one writer on SQLite) and the seq numbers have no gaps.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("audit_entries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("seq", "bigint", (c) => c.notNull())
    .addColumn("actor_kind", "text", (c) => c.notNull())
    .addColumn("actor_id", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target_kind", "text", (c) => c.notNull())
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("ip", "text")
    .addColumn("user_agent", "text")
    .addColumn("details", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("prev_hash", "text", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("audit_entries_account_seq_idx")
    .unique()
    .on("audit_entries")
    .columns(["account_id", "seq"])
    .execute();
  await db.schema
    .createIndex("audit_entries_created_idx")
    .on("audit_entries")
    .columns(["created_at"])
    .execute();
  await db.schema
    .createTable("audit_chain_heads")
    .addColumn("account_id", "text", (c) => c.primaryKey())
    .addColumn("seq", "bigint", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .execute();
}
