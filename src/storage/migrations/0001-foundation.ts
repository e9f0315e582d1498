import { type Kysely, sql } from "kysely";

// Portable types only (text, integer, bigint): see docs/decisions/0002-portable-storage-types.md.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("accounts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("balance_milli", "bigint", (c) => c.notNull().check(sql`balance_milli >= 0`))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("last4", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.createIndex("api_keys_account_idx").on("api_keys").columns(["account_id", "id"]).execute();

  await db.schema
    .createTable("credit_ledger")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("delta_milli", "bigint", (c) => c.notNull())
    .addColumn("balance_after_milli", "bigint", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("reference", "text")
    .addColumn("idempotency_key", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("credit_ledger_account_idx")
    .on("credit_ledger")
    .columns(["account_id", "id"])
    .execute();
  await db.schema
    .createIndex("credit_ledger_idempotency_idx")
    .on("credit_ledger")
    .columns(["account_id", "idempotency_key"])
    .unique()
    .execute();

  await db.schema
    .createTable("events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("dispatched", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("events_pending_idx").on("events").columns(["dispatched", "id"]).execute();
  await db.schema.createIndex("events_account_idx").on("events").columns(["account_id", "id"]).execute();
}
