import { type Kysely, sql } from "kysely";

// Scheduled re-validation (issue 26): one schedule per account, and the index its run reads the
// oldest verdicts with. A run claims its schedule (`claimed_at`) before it starts a batch named
// `revalidation:<next_run_at>`, so a run retried after a crash finds that batch instead of charging
// a second one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("revalidation_schedules")
    .addColumn("account_id", "text", (c) => c.primaryKey())
    .addColumn("older_than_days", "integer", (c) => c.notNull())
    .addColumn("every_hours", "integer", (c) => c.notNull())
    // The per-run cap in milli-credits (the API speaks stored credits: 0.002 = 2 milli-credits).
    .addColumn("max_milli_credits_per_run", "bigint", (c) => c.notNull())
    .addColumn("next_run_at", "text", (c) => c.notNull())
    .addColumn("claimed_at", "text")
    .addColumn("last_run_at", "text")
    .addColumn("last_run_status", "text")
    .addColumn("last_run_leads", "integer")
    .addColumn("last_run_batch_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("revalidation_schedules_due_idx")
    .on("revalidation_schedules")
    .column("next_run_at")
    .execute();
  await db.schema
    .createIndex("leads_account_validated_idx")
    .on("leads")
    .columns(["account_id", "validated_at"])
    .execute();
  // Every verdict carries the instant it was reached. A row that holds a verdict but no
  // validated_at (none is written so today; the guard covers rows from before the column was
  // always set with the verdict) takes its last update, the closest record of that instant.
  await sql`update leads set validated_at = updated_at
            where validated_at is null and email_status is not null`.execute(db);
}
