import type { Kysely } from "kysely";

// Data lifecycle (issue 25): tombstones of erased leads, per-account retention and suppression
// settings, and account export archives (docs/data-protection.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("erasure_tombstones")
    .addColumn("lead_id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("erased_at", "text", (c) => c.notNull())
    // HMAC-SHA256 of the normalized email under the server's key; null when no key is configured.
    .addColumn("email_hmac", "text")
    .execute();
  await db.schema
    .createIndex("erasure_tombstones_hmac_idx")
    .on("erasure_tombstones")
    .columns(["account_id", "email_hmac"])
    .execute();
  await db.schema
    .createTable("account_settings")
    .addColumn("account_id", "text", (c) => c.primaryKey())
    .addColumn("archived_lead_days", "integer")
    .addColumn("batch_item_days", "integer")
    .addColumn("delivery_body_days", "integer")
    .addColumn("audit_days", "integer")
    .addColumn("suppress_erased", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("account_exports")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull())
    .addColumn("archive", "bytea")
    .addColumn("size_bytes", "integer")
    .addColumn("error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("completed_at", "text")
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("account_exports_account_idx")
    .on("account_exports")
    .column("account_id")
    .execute();
}
