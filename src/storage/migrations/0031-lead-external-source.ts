import type { Kysely } from "kysely";

// Where a synced lead came from (google_sheets | hubspot), its row or contact there, and when its
// verdict was last written back (docs/decisions/0030).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("leads").addColumn("external_source", "text").execute();
  await db.schema.alterTable("leads").addColumn("external_id", "text").execute();
  await db.schema.alterTable("leads").addColumn("synced_at", "text").execute();
}
