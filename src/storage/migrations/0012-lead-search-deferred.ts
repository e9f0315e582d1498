import { type Kysely, PostgresAdapter, sql } from "kysely";

// SQLite's lead search index (0010) is kept behind the writes instead of inside them (ADR 0015).
// FTS5 writes a new index segment for every transaction that changes it, and merges segments as
// they pile up: for a single POST /v1/leads that was 7 of the commit's 19 pages and most of
// SQLite's CPU. Now a new lead enters the index later, many per transaction (LeadSearchIndexer),
// and `lead_search_progress.indexed_upto` is the highest lead rowid the index covers: rowids only
// grow, so every lead above it is not indexed yet, and search reads those few directly.
// The triggers keep the indexed leads (rowid <= indexed_upto) exact: an edit or delete of one
// changes the index in its own transaction. A lead inserted at or below the mark (SQLite reuses the
// highest rowid after that row is deleted) is indexed at once.
// PostgreSQL's trigram GIN index already defers its work (fastupdate): unchanged.
// After a VACUUM, which may renumber the rowids of a table without an INTEGER PRIMARY KEY, run
// `INSERT INTO leads_search(leads_search) VALUES ('rebuild')` and
// `UPDATE lead_search_progress SET indexed_upto = (SELECT coalesce(max(rowid), 0) FROM leads)`.
const INDEXED = sql`(select indexed_upto from lead_search_progress)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await sql`create table lead_search_progress (
    id integer primary key check (id = 1),
    indexed_upto integer not null
  )`.execute(db);
  // Every lead so far was indexed by 0010's triggers.
  await sql`insert into lead_search_progress (id, indexed_upto)
    values (1, coalesce((select max(rowid) from leads), 0))`.execute(db);
  await sql`drop trigger leads_search_ai`.execute(db);
  await sql`drop trigger leads_search_ad`.execute(db);
  await sql`drop trigger leads_search_au`.execute(db);
  await sql`create trigger leads_search_ai after insert on leads when new.rowid <= ${INDEXED} begin
    insert into leads_search(rowid, search_text) values (new.rowid, new.search_text);
  end`.execute(db);
  await sql`create trigger leads_search_ad after delete on leads when old.rowid <= ${INDEXED} begin
    insert into leads_search(leads_search, rowid, search_text) values ('delete', old.rowid, old.search_text);
  end`.execute(db);
  await sql`create trigger leads_search_au after update of email, first_name, last_name, company on leads
    when old.rowid <= ${INDEXED} begin
    insert into leads_search(leads_search, rowid, search_text) values ('delete', old.rowid, old.search_text);
    insert into leads_search(rowid, search_text) values (new.rowid, new.search_text);
  end`.execute(db);
}
