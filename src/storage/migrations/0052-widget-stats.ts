import type { Kysely } from "kysely";

// Widget statistics (issue 24, docs/decisions/0052-widget-stats.md): per publishable key, UTC day
// and metric ("checks", "block:typo", "cap:perIpPerMinute", ...), a count. Instances add their own
// increments (`count = count + n`), so several API processes sum correctly. `account_id` is the
// key's data space (a test-mode key's counts live in the test space, ADR 0051). No address and no
// IP is stored: the counts are not personal data.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("widget_stats_daily")
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("key_id", "text", (c) => c.notNull())
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("metric", "text", (c) => c.notNull())
    .addColumn("count", "bigint", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("widget_stats_daily_pk", ["account_id", "day", "key_id", "metric"])
    .execute();
}
