import type { Kysely } from "kysely";

// Restricted, publishable and test-mode keys (issue 24, docs/decisions/0050). Existing keys become
// live secret keys with every permission: the spec's behaviour. Lists are JSON text (ADR 0002);
// NULL means "no restriction". `public_key` holds a publishable key in clear (it is public; the
// lookup still goes by hash), never a secret one. One column per statement: SQLite's ALTER TABLE
// adds one at a time.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("api_keys")
    .addColumn("type", "text", (c) => c.notNull().defaultTo("secret"))
    .execute();
  await db.schema
    .alterTable("api_keys")
    .addColumn("mode", "text", (c) => c.notNull().defaultTo("live"))
    .execute();
  for (const column of [
    "permissions",
    "allowed_ips",
    "allowed_origins",
    "expires_at",
    "widget_settings",
    "public_key",
  ]) {
    await db.schema.alterTable("api_keys").addColumn(column, "text").execute();
  }
}
