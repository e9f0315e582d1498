import type { Kysely } from "kysely";

// Every checkout session leadcheck creates, with what it sold (docs/decisions/0016, revision 2).
// The webhook grants from this row, after the provider confirms the session is paid for this
// amount and currency: a signed event's metadata is never what decides who gets how many credits.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("checkout_sessions")
    .addColumn("session_id", "text", (c) => c.primaryKey())
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("amount_minor", "bigint", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("milli_credits", "bigint", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("checkout_sessions_account_idx")
    .on("checkout_sessions")
    .columns(["account_id", "created_at"])
    .execute();
}
