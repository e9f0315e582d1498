import type { Kysely } from "kysely";

// What kind of parked page a lead's website is (parked | placeholder) and the evidence for it
// (docs/decisions/0011-parked-page-evidence.md): JSON, a short list of signals. Both null until
// validated, and when the site answered no page to judge.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("leads").addColumn("website_parked_kind", "text").execute();
  await db.schema.alterTable("leads").addColumn("website_parked_evidence", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("leads").dropColumn("website_parked_evidence").execute();
  await db.schema.alterTable("leads").dropColumn("website_parked_kind").execute();
}
