import { type Kysely, PostgresAdapter, sql } from "kysely";

// Lead search (GET /v1/leads?search=) and the lead list's new orders of business, ADR 0015.
// `search_text` is a generated column, lower-cased "email first last company", so no write path
// has to remember it. Substring search stays indexed at 100,000 leads on both dialects:
// - PostgreSQL: a trigram GIN index (pg_trgm, a trusted extension since PostgreSQL 13, so the
//   database owner may create it) serves `search_text LIKE '%term%'` for terms of 3+ characters.
// - SQLite: an FTS5 trigram index over the same text, an external-content table kept by triggers
//   and keyed by the lead's rowid (0012 moves new leads' indexing out of their transactions, and
//   says what to run after a VACUUM).
const SEARCH_TEXT = sql`lower(email || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(company, ''))`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`alter table leads add column search_text text generated always as (${SEARCH_TEXT}) stored`.execute(
      db,
    );
    await sql`create index leads_search_trgm_idx on leads using gin (search_text gin_trgm_ops)`.execute(db);
  } else {
    await sql`alter table leads add column search_text text generated always as (${SEARCH_TEXT}) virtual`.execute(
      db,
    );
    await sql`create virtual table leads_search using fts5(search_text, content='leads', content_rowid='rowid', tokenize='trigram')`.execute(
      db,
    );
    await sql`insert into leads_search(leads_search) values ('rebuild')`.execute(db);
    await sql`create trigger leads_search_ai after insert on leads begin
      insert into leads_search(rowid, search_text) values (new.rowid, new.search_text);
    end`.execute(db);
    await sql`create trigger leads_search_ad after delete on leads begin
      insert into leads_search(leads_search, rowid, search_text) values ('delete', old.rowid, old.search_text);
    end`.execute(db);
    await sql`create trigger leads_search_au after update of email, first_name, last_name, company on leads begin
      insert into leads_search(leads_search, rowid, search_text) values ('delete', old.rowid, old.search_text);
      insert into leads_search(rowid, search_text) values (new.rowid, new.search_text);
    end`.execute(db);
  }
  // The recent batches of an account, newest first (the overview).
  await db.schema.createIndex("batches_account_id_idx").on("batches").columns(["account_id", "id"]).execute();
}
