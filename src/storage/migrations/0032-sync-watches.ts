import type { Kysely } from "kysely";

// Watches (issue 26): a sheet or HubSpot source passed over again every N minutes until stopped.
// Each pass is a sync row (`syncs.watch_id`); HubSpot passes read contacts modified since the
// previous pass's start (`since_ms`).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("sync_watches")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("connection_id", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("params", "text", (c) => c.notNull())
    .addColumn("every_minutes", "integer", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("stopped_at", "text")
    .execute();
  await db.schema
    .createIndex("sync_watches_connection_idx")
    .on("sync_watches")
    .columns(["connection_id"])
    .execute();
  await db.schema.alterTable("syncs").addColumn("watch_id", "text").execute();
  await db.schema.alterTable("syncs").addColumn("since_ms", "bigint").execute();
}
