import type { Kysely } from "kysely";

// Bought credits (docs/decisions/0016-imports-and-payments.md). Two guards make a Stripe payment
// grant credits exactly once: every webhook event id is recorded once (a replayed event is seen and
// skipped), and every Checkout Session is paid out once (a session completed by two different
// events, e.g. redelivered under a new id, grants once). The ledger entry carries the payment id.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("payment_events")
    .addColumn("event_id", "text", (c) => c.primaryKey())
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("received_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("payments")
    .addColumn("session_id", "text", (c) => c.primaryKey())
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("payment_id", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("amount_minor", "bigint", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("milli_credits", "bigint", (c) => c.notNull())
    .addColumn("ledger_entry_id", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("payments_account_idx")
    .on("payments")
    .columns(["account_id", "created_at"])
    .execute();
}
