import type { Kysely } from "kysely";

// Used dashboard sign-in links (docs/decisions/0008-dashboard-sign-in.md): one row per exchanged
// token id, so a link works once. Rows are dropped once the token has expired anyway.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("signin_tokens")
    .addColumn("jti", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("used_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("signin_tokens_expires_idx").on("signin_tokens").column("expires_at").execute();
}
