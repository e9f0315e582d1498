import type { Kysely } from "kysely";

// The email verdict's reason on the lead (docs/decisions/0010-email-verdicts.md): one of the closed
// list EMAIL_REASONS, null until the lead is validated.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("leads").addColumn("email_reason", "text").execute();
}
