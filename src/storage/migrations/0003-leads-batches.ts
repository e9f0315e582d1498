import { type Kysely, sql } from "kysely";

// Leads, validation batches and their items, email/website validation jobs, daily usage counters.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("leads")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("email_lower", "text", (c) => c.notNull())
    .addColumn("website", "text")
    .addColumn("first_name", "text")
    .addColumn("last_name", "text")
    .addColumn("company", "text")
    .addColumn("title", "text")
    .addColumn("phone", "text")
    .addColumn("linkedin", "text")
    .addColumn("twitter", "text")
    .addColumn("service_category", "text")
    .addColumn("service_subcategory", "text")
    .addColumn("campaign", "text")
    .addColumn("tags", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("notes", "text")
    .addColumn("priority", "text", (c) => c.notNull().defaultTo("normal"))
    .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("custom_fields", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("metadata", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("validation_status", "text", (c) => c.notNull().defaultTo("new"))
    .addColumn("rating", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("recommendation", "text", (c) => c.notNull().defaultTo("skip"))
    .addColumn("quality", "text", (c) => c.notNull().defaultTo("poor"))
    .addColumn("rating_factors", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("email_valid", "integer")
    .addColumn("email_catch_all", "integer")
    .addColumn("email_disposable", "integer")
    .addColumn("email_service", "text")
    .addColumn("email_score", "integer")
    .addColumn("email_type", "text")
    .addColumn("email_risk", "text")
    .addColumn("email_status", "text")
    .addColumn("domain_status", "text")
    .addColumn("domain_http_status", "integer")
    .addColumn("domain_final_url", "text")
    .addColumn("domain_ssl_valid", "integer")
    .addColumn("domain_parked", "integer")
    .addColumn("domain_response_time_ms", "integer")
    .addColumn("domain_score", "integer")
    .addColumn("validation_details", "text")
    .addColumn("validated_at", "text")
    .addColumn("archived_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // One live lead per email per account; archived leads do not block (partial unique index).
  await db.schema
    .createIndex("leads_account_email_live_uq")
    .on("leads")
    .columns(["account_id", "email_lower"])
    .unique()
    .where(sql.ref("archived_at"), "is", null)
    .execute();
  await db.schema
    .createIndex("leads_account_list_idx")
    .on("leads")
    .columns(["account_id", "archived_at", "id"])
    .execute();
  await db.schema
    .createIndex("leads_account_status_idx")
    .on("leads")
    .columns(["account_id", "validation_status"])
    .execute();

  await db.schema
    .createTable("batches")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("total", "integer", (c) => c.notNull())
    .addColumn("completed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("valid", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("invalid", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("progress_quarter", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("webhook_url", "text")
    .addColumn("source", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("completed_at", "text")
    .execute();
  await db.schema
    .createIndex("batches_account_status_idx")
    .on("batches")
    .columns(["account_id", "status"])
    .execute();

  await db.schema
    .createTable("batch_items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("batch_id", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("lead_id", "text")
    .addColumn("input", "text", (c) => c.notNull())
    .addColumn("group_key", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
    .addColumn("verdict", "text")
    .addColumn("result", "text")
    .addColumn("error", "text")
    .addColumn("completed_at", "text")
    .execute();
  await db.schema
    .createIndex("batch_items_batch_seq_idx")
    .on("batch_items")
    .columns(["batch_id", "seq"])
    .unique()
    .execute();
  await db.schema
    .createIndex("batch_items_batch_status_idx")
    .on("batch_items")
    .columns(["batch_id", "status", "group_key"])
    .execute();

  await db.schema
    .createTable("validation_jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("input", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("result", "text")
    .addColumn("error", "text")
    .addColumn("webhook_url", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("completed_at", "text")
    .addColumn("deadline_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("validation_jobs_expiry_idx")
    .on("validation_jobs")
    .column("expires_at")
    .execute();

  await db.schema
    .createTable("usage_daily")
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("validations", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("usage_daily_pk", ["account_id", "day"])
    .execute();
}
