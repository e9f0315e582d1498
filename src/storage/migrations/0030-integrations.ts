import type { Kysely } from "kysely";

// Connections to Google Sheets and HubSpot and their syncs (docs/decisions/0030). Credentials are
// stored encrypted (AES-256-GCM, bound to the connection id). A sync keeps its phase and a cursor
// so a pass killed mid-way resumes where it stopped; sync_items records which lead each row or
// contact became and whether its verdict was written back, so nothing is written twice.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("connections")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("status_reason", "text")
    .addColumn("client_email", "text")
    .addColumn("credentials", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("last_sync_at", "text")
    .addColumn("deleted_at", "text")
    .execute();
  await db.schema
    .createIndex("connections_account_idx")
    .on("connections")
    .columns(["account_id", "id"])
    .execute();
  await db.schema
    .createTable("syncs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("connection_id", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("phase", "text", (c) => c.notNull())
    .addColumn("params", "text", (c) => c.notNull())
    .addColumn("cursor", "text")
    .addColumn("counts", "text", (c) => c.notNull())
    .addColumn("errors", "text", (c) => c.notNull())
    .addColumn("batch_id", "text")
    .addColumn("failure_reason", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("completed_at", "text")
    .execute();
  await db.schema.createIndex("syncs_connection_idx").on("syncs").columns(["connection_id", "id"]).execute();
  await db.schema
    .createTable("sync_items")
    .addColumn("sync_id", "text", (c) => c.notNull())
    .addColumn("item_key", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("lead_id", "text", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("written", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("sync_items_pk", ["sync_id", "item_key"])
    .execute();
  await db.schema.createIndex("sync_items_seq_idx").on("sync_items").columns(["sync_id", "seq"]).execute();
}
