import type { Kysely } from "kysely";

// The HubSpot portal a connection reaches (read at connect time from the account-info API), and
// the external account a synced lead belongs to (its HubSpot portal), so that a lead links back to
// its contact record (docs/decisions/0032).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("connections").addColumn("portal_id", "text").execute();
  await db.schema.alterTable("leads").addColumn("external_account", "text").execute();
}
