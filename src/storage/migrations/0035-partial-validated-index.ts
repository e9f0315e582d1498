import { type Kysely, sql } from "kysely";

// The re-validation schedule's index (0033) only ever serves "validated before a cutoff", but as a
// full index every new lead paid for an entry with a null validated_at: on SQLite, where the
// index is kept in the API's own process, lead creation cost ~7 % more CPU than before the index
// (bench:api, issue 25). Partial on `validated_at is not null`, a lead enters it only when its
// first verdict is written, off the creation path; `validated_at < ?` still implies the condition
// on both databases, so the schedule's query keeps using it (docs/decisions/0081).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("leads_account_validated_idx").execute();
  await db.schema
    .createIndex("leads_account_validated_idx")
    .on("leads")
    .columns(["account_id", "validated_at"])
    .where(sql.ref("validated_at"), "is not", null)
    .execute();
}
