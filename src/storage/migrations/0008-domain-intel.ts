import { type Kysely, sql } from "kysely";
import { normalizeEmailAddress } from "../../checks/email/normalized-email.js";

// Domain intelligence on leads (docs/decisions/0012-domain-intelligence.md):
// - normalized_email: the address with provider aliases folded (j.doe+crm@gmail.com ->
//   jdoe@gmail.com), for alias-aware duplicate refusal; an index serves that check. It is not
//   unique: existing accounts may already hold two aliases of one mailbox, and the exact-address
//   unique index (leads_account_email_live_uq) stays the race-proof guard.
// - domain facts the list filters on (age in days at validation, block-list listing), the typo
//   suggestion, and the whole intelligence record as JSON for the lead view.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("leads").addColumn("normalized_email", "text").execute();
  for (const [name, type] of [
    ["domain_age_days", "integer"],
    ["domain_listed", "integer"],
    ["did_you_mean", "text"],
    ["domain_intel", "text"],
  ] as const) {
    await db.schema.alterTable("leads").addColumn(name, type).execute();
  }
  await backfillNormalizedEmails(db);
  await db.schema
    .createIndex("leads_account_normalized_email_idx")
    .on("leads")
    .columns(["account_id", "normalized_email"])
    .where(sql.ref("archived_at"), "is", null)
    .execute();
}

/** Most addresses normalise to their lower-cased form; only the providers' rows need a look each. */
async function backfillNormalizedEmails(db: Kysely<unknown>): Promise<void> {
  await sql`update leads set normalized_email = email_lower where normalized_email is null`.execute(db);
  let after = "";
  for (;;) {
    const rows = await sql<{ id: string; email_lower: string }>`
      select id, email_lower from leads
      where id > ${after} and (email_lower like ${"%+%"} or email_lower like ${"%@gmail.com"}
        or email_lower like ${"%@googlemail.com"})
      order by id limit 1000`.execute(db);
    for (const row of rows.rows) {
      const normalized = normalizeEmailAddress(row.email_lower);
      if (normalized !== row.email_lower)
        await sql`update leads set normalized_email = ${normalized} where id = ${row.id}`.execute(db);
    }
    if (rows.rows.length < 1000) return;
    after = rows.rows[rows.rows.length - 1]!.id;
  }
}
