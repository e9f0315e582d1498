import type { Kysely } from "kysely";

// Dashboard single sign-on (issue 25, docs/decisions/0061-dashboard-sso.md). `sso_logins` holds
// one started sign-in per state (PKCE verifier, nonce), deleted when the provider's answer comes
// back, so a state works once. `sso_sessions` holds the dashboard sessions by the hash of their
// cookie, with their CSRF token; logout sets `ended_at`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("sso_logins")
    .addColumn("state", "text", (c) => c.primaryKey())
    .addColumn("code_verifier", "text", (c) => c.notNull())
    .addColumn("nonce", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("sso_sessions")
    .addColumn("id_hash", "text", (c) => c.primaryKey())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("email", "text")
    .addColumn("email_verified", "integer", (c) => c.notNull())
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("ended_at", "text")
    .execute();
  await db.schema.createIndex("sso_sessions_subject_idx").on("sso_sessions").column("subject").execute();
}
