import { type Kysely, sql } from "kysely";

// Teams (issue 25, docs/decisions/0060-teams-and-roles.md). An account has members: an
// identity-provider subject with a role. Every account that exists today gets its own identity
// (the account id is the subject of the token that created it) as its owner. A removed member's
// row stays with `removed_at` set, so the keys they created can still name them. Invitations
// store only a hash of their token; `accepted_at` makes them single-use.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("team_members")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("email", "text")
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("removed_at", "text")
    .execute();
  // One current membership per subject and account; removed rows do not count.
  await sql`CREATE UNIQUE INDEX team_members_current_idx ON team_members (account_id, subject) WHERE removed_at IS NULL`.execute(
    db,
  );
  await db.schema.createIndex("team_members_subject_idx").on("team_members").column("subject").execute();
  await db.schema
    .createTable("team_invitations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("invited_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("accepted_at", "text")
    .addColumn("accepted_by", "text")
    .execute();
  await db.schema
    .createIndex("team_invitations_account_idx")
    .on("team_invitations")
    .column("account_id")
    .execute();
  await db.schema.alterTable("api_keys").addColumn("created_by_member", "text").execute();
  await sql`INSERT INTO team_members (id, account_id, subject, email, role, created_at, updated_at, removed_at)
    SELECT 'mem_' || id, id, id, NULL, 'owner', created_at, created_at, NULL FROM accounts`.execute(db);
}
