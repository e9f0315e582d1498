import { type Kysely, sql } from "kysely";

// The embedded runner's dead-letter queues, and indexes for the stalled-work sweeper (docs/decisions/0013-job-lifecycle.md): a job that
// fails for good is copied into the queue named by its `dead_letter`, with the failure in
// `output`, in the same transaction that fails it, so its onExhausted hook runs exactly like
// pg-boss's dead-letter jobs do on PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").addColumn("dead_letter", "text").execute();
  await db.schema.alterTable("jobs").addColumn("output", "text").execute();
  // The stalled-work sweeper's lookups: only rows still in flight are indexed.
  await db.schema
    .createIndex("batches_processing_idx")
    .on("batches")
    .column("started_at")
    .where(sql.ref("status"), "=", "processing")
    .execute();
  await db.schema
    .createIndex("leads_processing_idx")
    .on("leads")
    .column("updated_at")
    .where(sql.ref("validation_status"), "=", "processing")
    .execute();
  await db.schema
    .createIndex("batch_items_pending_lead_idx")
    .on("batch_items")
    .column("lead_id")
    .where(sql.ref("status"), "=", "pending")
    .execute();
  await db.schema
    .createIndex("validation_jobs_processing_idx")
    .on("validation_jobs")
    .column("deadline_at")
    .where(sql.ref("status"), "=", "processing")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of [
    "validation_jobs_processing_idx",
    "batch_items_pending_lead_idx",
    "leads_processing_idx",
    "batches_processing_idx",
  ]) {
    await db.schema.dropIndex(index).execute();
  }
  await db.schema.alterTable("jobs").dropColumn("output").execute();
  await db.schema.alterTable("jobs").dropColumn("dead_letter").execute();
}
