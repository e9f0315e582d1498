import { type Kysely, sql } from "kysely";

// Webhook endpoints and their delivery records (spec "Webhook", "Delivery record").
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhooks")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("events", "text", (c) => c.notNull())
    .addColumn("active", "integer", (c) => c.notNull())
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("max_retries", "integer", (c) => c.notNull())
    .addColumn("retry_delays", "text", (c) => c.notNull())
    .addColumn("total_attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("successful_deliveries", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failed_deliveries", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_delivery_at", "text")
    .addColumn("last_success_at", "text")
    .addColumn("secret_rotated_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("webhooks_account_idx").on("webhooks").columns(["account_id", "id"]).execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("webhook_id", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("event", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("http_status", "integer")
    .addColumn("response_body", "text")
    .addColumn("error_message", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("attempt_log", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("is_test", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("redelivery_of", "text")
    .addColumn("next_attempt_at", "text")
    .addColumn("delivered_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // One fan-out per event and endpoint, even when two dispatchers race; redeliveries are extra rows.
  await db.schema
    .createIndex("webhook_deliveries_event_uq")
    .on("webhook_deliveries")
    .columns(["webhook_id", "event_id"])
    .unique()
    .where(sql.ref("redelivery_of"), "is", null)
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_list_idx")
    .on("webhook_deliveries")
    .columns(["webhook_id", "id"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_created_idx")
    .on("webhook_deliveries")
    .column("created_at")
    .execute();
}
