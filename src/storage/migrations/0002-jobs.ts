import { type Kysely, sql } from "kysely";

// The embedded queue's table. It is created on PostgreSQL too (portable schema), where the
// pg-boss runner keeps its jobs in its own `pgboss` schema instead and leaves this table empty.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("singleton_key", "text")
    .addColumn("retry_limit", "integer", (c) => c.notNull())
    .addColumn("retry_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("retry_delay_ms", "integer", (c) => c.notNull())
    .addColumn("retry_backoff", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("expire_in_ms", "integer", (c) => c.notNull())
    .addColumn("start_after", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("completed_at", "text")
    .addColumn("locked_until", "text")
    .addColumn("lease_token", "text")
    .addColumn("last_error", "text")
    .execute();
  // Claiming: due jobs of one queue in start order.
  await db.schema
    .createIndex("jobs_claim_idx")
    .on("jobs")
    .columns(["name", "state", "start_after"])
    .execute();
  // Lease expiry and purging scan by state and time.
  await db.schema.createIndex("jobs_lease_idx").on("jobs").columns(["state", "locked_until"]).execute();
  await db.schema.createIndex("jobs_finished_idx").on("jobs").columns(["state", "completed_at"]).execute();
  // singletonKey: at most one job per key waiting for its first start (pg-boss's `short` policy).
  await db.schema
    .createIndex("jobs_singleton_idx")
    .on("jobs")
    .columns(["name", "singleton_key"])
    .unique()
    .where(sql.ref("state"), "=", "created")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("jobs").execute();
}
