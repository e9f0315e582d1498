// The only SQL for leads.
import { type Kysely, sql, type Transaction } from "kysely";
import { lockForTransaction } from "../storage/advisory-locks.js";
import { type RowUpdate, updateRowsById } from "../storage/bulk-update.js";
import { insertInChunks } from "../storage/chunked-insert.js";
import type { Database } from "../storage/db.js";
import type { DialectCaps } from "../storage/dialect.js";
import { prepareRead } from "../storage/prepared.js";
import type { LeadsTable, Schema } from "../storage/schema.js";

type Executor = Kysely<Schema> | Transaction<Schema>;

/**
 * "Live lead of this account", written so that lookups by id always go through the primary key.
 * With fresh rows and no statistics yet (a bulk import), PostgreSQL otherwise picks the
 * (account_id, ...) indexes for these conditions and scans every lead of the account per lookup.
 */
const liveOf = (accountId: string) =>
  sql<boolean>`coalesce(account_id, '') = ${accountId} and archived_at is null`;

export interface LeadFilter {
  emailValid?: boolean | undefined;
  minRating?: number | undefined;
  maxRating?: number | undefined;
  validationStatus?: string | undefined;
  recommendation?: string | undefined;
  campaign?: string | undefined;
  source?: string | undefined;
  /** Lower-cased text found anywhere in "email first last company". */
  search?: string | undefined;
  /** A tag the lead carries (exact). */
  tag?: string | undefined;
  minDomainAgeDays?: number | undefined;
  maxDomainAgeDays?: number | undefined;
  domainListed?: boolean | undefined;
  hasDidYouMean?: boolean | undefined;
}

/** How many advisory locks the mailboxes of one account spread over (see `lockMailboxes`). */
const MAILBOX_LOCK_BUCKETS = 256;

/** FNV-1a of the normalized email, reduced to a lock bucket. */
function mailboxBucket(normalizedEmail: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < normalizedEmail.length; i++) {
    h ^= normalizedEmail.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % MAILBOX_LOCK_BUCKETS;
}

/** `text` as a LIKE pattern matching itself literally (with `escape '\'`). */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Shortest search the trigram indexes can serve; shorter ones scan the account's leads. */
const TRIGRAM_MIN_CHARS = 3;

/** SQLite: the highest lead rowid the FTS5 search index covers (migration 0012). */
const searchIndexedUpto = sql<number>`(select indexed_upto from lead_search_progress)`;

/** The search condition on the dialect's index (migrations 0010, 0012). */
function searchCondition(search: string, how: DialectCaps["leadSearch"]) {
  const pattern = `%${likeLiteral(search)}%`;
  if (how === "fts5_trigram" && [...search].length >= TRIGRAM_MIN_CHARS) {
    // One FTS5 phrase: with the trigram tokenizer it matches the text as a substring. Leads created
    // since the indexer's last run are not in the index yet: those few are read directly.
    const phrase = `"${search.replaceAll('"', '""')}"`;
    return sql<boolean>`leads.rowid in (
      select rowid from leads_search where leads_search match ${phrase}
      union all
      select recent.rowid from leads as recent
      where recent.rowid > ${searchIndexedUpto} and recent.search_text like ${pattern} escape '\\')`;
  }
  return sql<boolean>`search_text like ${pattern} escape '\\'`;
}

/** The lead page's lookup (GET /v1/leads/{id}): compiled once per database. */
export function prepareLiveLeadById(database: Database) {
  return prepareRead(database, (db, p: { id: string; accountId: string }) =>
    db.selectFrom("leads").selectAll().where("id", "=", p.id).where(liveOf(p.accountId)),
  );
}

export class LeadsRepo {
  insert(db: Executor, row: LeadsTable) {
    return insertInChunks(db, "leads", [row]);
  }

  /** Many rows per statement, within the database's parameter limit. */
  insertMany(db: Executor, rows: LeadsTable[]) {
    return insertInChunks(db, "leads", rows);
  }

  /**
   * SQLite: adds to the search index up to `limit` leads it does not cover yet, the oldest first,
   * and moves its mark past them (migration 0012); returns how many.
   */
  async indexSearchTail(trx: Transaction<Schema>, limit: number): Promise<number> {
    const { rows } = await sql<{ upto: number; last: number | null; count: number }>`
      select ${searchIndexedUpto} as upto, max(rowid) as last, count(*) as count from (
        select rowid from leads where rowid > ${searchIndexedUpto} order by rowid limit ${limit}
      )`.execute(trx);
    const { upto, last, count } = rows[0]!;
    if (last === null) return 0;
    await sql`insert into leads_search (rowid, search_text)
      select rowid, search_text from leads where rowid > ${upto} and rowid <= ${last}`.execute(trx);
    await sql`update lead_search_progress set indexed_upto = ${last}`.execute(trx);
    return count;
  }

  findLive(db: Executor, accountId: string, id: string) {
    return db
      .selectFrom("leads")
      .selectAll()
      .where("id", "=", id)
      .where(liveOf(accountId))
      .executeTakeFirst();
  }

  /**
   * Serialises writers of the same mailbox (aliases folded) until `trx` ends, so that two
   * transactions cannot both find an alias free and both insert it: the exact-address unique index
   * cannot see that j.doe+crm@gmail.com and jdoe@gmail.com are one lead. PostgreSQL takes
   * transaction-scoped advisory locks on (account, bucket of the normalized email), in ascending
   * bucket order so that two writers never wait on each other crosswise; a bulk import takes at most
   * MAILBOX_LOCK_BUCKETS of them. SQLite already runs one writer at a time.
   */
  async lockMailboxes(
    trx: Transaction<Schema>,
    caps: DialectCaps,
    accountId: string,
    normalizedEmails: string[],
  ): Promise<void> {
    await lockForTransaction(trx, caps, `mailbox:${accountId}`, normalizedEmails.map(mailboxBucket));
  }

  /** The live lead whose address is the same mailbox (aliases folded), if any. */
  async findLiveByNormalizedEmail(
    db: Executor,
    accountId: string,
    normalizedEmail: string,
    exceptId?: string,
  ): Promise<{ id: string; email: string } | undefined> {
    let q = db
      .selectFrom("leads")
      .select(["id", "email"])
      .where("account_id", "=", accountId)
      .where("normalized_email", "=", normalizedEmail)
      .where("archived_at", "is", null);
    if (exceptId) q = q.where("id", "!=", exceptId);
    // The oldest holder, picked here: an ORDER BY id in SQL makes SQLite walk the account's
    // (account_id, archived_at, id) index, every live lead of the account, instead of this one's.
    const holders = await q.execute();
    return holders.sort((a, b) => (a.id < b.id ? -1 : 1))[0];
  }

  /** Normalized email -> id of the live lead holding it, among `normalizedEmails`. */
  async liveNormalizedEmailsTaken(
    db: Executor,
    accountId: string,
    normalizedEmails: string[],
  ): Promise<Map<string, string>> {
    const taken = new Map<string, string>();
    for (let i = 0; i < normalizedEmails.length; i += 500) {
      const rows = await db
        .selectFrom("leads")
        .select(["id", "normalized_email"])
        .where("account_id", "=", accountId)
        .where("archived_at", "is", null)
        .where("normalized_email", "in", normalizedEmails.slice(i, i + 500))
        .execute();
      for (const r of rows) if (!taken.has(r.normalized_email)) taken.set(r.normalized_email, r.id);
    }
    return taken;
  }

  /** Whether each taken mailbox's live lead was ever validated (a sync's cost preview). */
  async liveMailboxesValidated(
    db: Executor,
    accountId: string,
    normalizedEmails: string[],
  ): Promise<Map<string, boolean>> {
    const validated = new Map<string, boolean>();
    for (let i = 0; i < normalizedEmails.length; i += 500) {
      const rows = await db
        .selectFrom("leads")
        .select(["normalized_email", "validation_status"])
        .where("account_id", "=", accountId)
        .where("archived_at", "is", null)
        .where("normalized_email", "in", normalizedEmails.slice(i, i + 500))
        .execute();
      for (const r of rows) validated.set(r.normalized_email, r.validation_status !== "new");
    }
    return validated;
  }

  /** Ids among `ids` that are live leads of the account. */
  async liveIds(db: Executor, accountId: string, ids: string[]): Promise<Set<string>> {
    return new Set((await this.liveEmails(db, accountId, ids)).keys());
  }

  /** The emails of the account's live leads among `ids`, by id (a batch's items record the
   *  address they check). */
  async liveEmails(db: Executor, accountId: string, ids: string[]): Promise<Map<string, string>> {
    const emailOf = new Map<string, string>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await db
        .selectFrom("leads")
        .select(["id", "email"])
        .where("id", "in", ids.slice(i, i + 500))
        .where(liveOf(accountId))
        .execute();
      for (const row of rows) emailOf.set(row.id, row.email);
    }
    return emailOf;
  }

  /** Live leads of the account among `ids` (at most a few hundred), with their tags. */
  liveTags(db: Executor, accountId: string, ids: string[]) {
    return db
      .selectFrom("leads")
      .select(["id", "tags"])
      .where("id", "in", ids)
      .where(liveOf(accountId))
      .execute();
  }

  /** Live leads of the account among `ids`, in id order (export of a selection). */
  liveByIds(db: Executor, accountId: string, ids: string[]) {
    return db
      .selectFrom("leads")
      .selectAll("leads")
      .where("id", "in", ids)
      .where(liveOf(accountId))
      .orderBy("id", "asc")
      .execute();
  }

  /** Ids of the account's live leads last validated before `before`, oldest verdict first, none
   *  of them being validated now (re-validation; served by leads_account_validated_idx). */
  async validatedBefore(db: Executor, accountId: string, before: string, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom("leads")
      .select("id")
      .where(liveOf(accountId))
      .where("validated_at", "is not", null)
      .where("validated_at", "<", before)
      .where("validation_status", "!=", "processing")
      .orderBy("validated_at", "asc")
      .orderBy("id", "asc")
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  setSyncedAt(db: Executor, accountId: string, ids: string[], at: string) {
    return db
      .updateTable("leads")
      .set({ synced_at: at })
      .where("id", "in", ids)
      .where(liveOf(accountId))
      .execute();
  }

  archiveMany(db: Executor, accountId: string, ids: string[], at: string) {
    return db
      .updateTable("leads")
      .set({ archived_at: at, updated_at: at })
      .where("id", "in", ids)
      .where(liveOf(accountId))
      .executeTakeFirst();
  }

  update(db: Executor, accountId: string, id: string, changes: Partial<LeadsTable>) {
    return db
      .updateTable("leads")
      .set(changes)
      .where("id", "=", id)
      .where(liveOf(accountId))
      .executeTakeFirst();
  }

  /** update() for many leads of one account, each with its own changes, at once (bulk-update.ts):
   *  returns the ids of the live leads that changed. */
  updateMany(db: Executor, accountId: string, rows: readonly RowUpdate[]): Promise<Set<string>> {
    return updateRowsById(db, "leads", rows, { account_id: accountId, archived_at: null });
  }

  setStatus(db: Executor, ids: string[], status: string, at: string) {
    return db
      .updateTable("leads")
      .set({ validation_status: status, updated_at: at })
      .where("id", "in", ids)
      .execute();
  }

  /** The leads of `ids` that are not archived. Looked up by id alone and filtered here: with an
   *  `archived_at is null` term, PostgreSQL's planner, on the stale statistics of a table that a
   *  bulk import has just filled, picks a partial index over every live lead instead of the key. */
  async findLiveForValidation(db: Executor, ids: string[]) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom("leads")
      .select(["id", "email", "website", "archived_at"])
      .where("id", "in", ids)
      .execute();
    return rows.flatMap(({ archived_at, ...lead }) => (archived_at === null ? [lead] : []));
  }

  /** Leads whose validation could not finish end `risky` (decisions §5); only those still
   *  `processing`, so a lead validated meanwhile keeps its answer. Returns how many changed. */
  async closeProcessing(db: Executor, ids: string[], at: string): Promise<number> {
    let changed = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const r = await db
        .updateTable("leads")
        .set({ validation_status: "risky", updated_at: at })
        .where("id", "in", ids.slice(i, i + 500))
        .where("validation_status", "=", "processing")
        .executeTakeFirst();
      changed += Number(r.numUpdatedRows);
    }
    return changed;
  }

  /** Leads `processing` untouched since `cutoff` and not pending in a running batch: their
   *  single-lead validation job is gone. */
  stalledProcessing(db: Executor, cutoff: string, limit: number) {
    return db
      .selectFrom("leads as l")
      .select(["l.id", "l.account_id"])
      .where("l.validation_status", "=", "processing")
      .where("l.updated_at", "<", cutoff)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("batch_items as i")
              .innerJoin("batches as b", "b.id", "i.batch_id")
              .select("i.id")
              .whereRef("i.lead_id", "=", "l.id")
              .where("i.status", "=", "pending")
              .where("b.status", "=", "processing"),
          ),
        ),
      )
      .limit(limit)
      .execute();
  }

  /** The account's live leads that match the filter (list, export). */
  private filtered(db: Executor, caps: DialectCaps, accountId: string, filter: LeadFilter) {
    let q = db.selectFrom("leads").where("account_id", "=", accountId).where("archived_at", "is", null);
    if (filter.search) q = q.where(searchCondition(filter.search, caps.leadSearch));
    // Tags are a JSON array of strings: the tag's own JSON text, quotes included, is an element.
    if (filter.tag)
      q = q.where(sql<boolean>`tags like ${`%${likeLiteral(JSON.stringify(filter.tag))}%`} escape '\\'`);
    if (filter.emailValid !== undefined) q = q.where("email_valid", "=", filter.emailValid ? 1 : 0);
    if (filter.minRating !== undefined) q = q.where("rating", ">=", filter.minRating);
    if (filter.maxRating !== undefined) q = q.where("rating", "<=", filter.maxRating);
    if (filter.validationStatus) q = q.where("validation_status", "=", filter.validationStatus);
    // Recommendations exist from the first validation on (ADR 0015).
    if (filter.recommendation)
      q = q.where("recommendation", "=", filter.recommendation).where("validated_at", "is not", null);
    if (filter.campaign) q = q.where("campaign", "=", filter.campaign);
    if (filter.source) q = q.where("source", "=", filter.source);
    if (filter.minDomainAgeDays !== undefined) q = q.where("domain_age_days", ">=", filter.minDomainAgeDays);
    if (filter.maxDomainAgeDays !== undefined) q = q.where("domain_age_days", "<=", filter.maxDomainAgeDays);
    if (filter.domainListed !== undefined) q = q.where("domain_listed", "=", filter.domainListed ? 1 : 0);
    if (filter.hasDidYouMean !== undefined)
      q = q.where("did_you_mean", filter.hasDidYouMean ? "is not" : "is", null);
    return q;
  }

  async list(
    db: Executor,
    caps: DialectCaps,
    accountId: string,
    filter: LeadFilter,
    limit: number,
    offset: number,
  ) {
    const q = this.filtered(db, caps, accountId, filter);
    const [rows, count] = await Promise.all([
      q.selectAll("leads").orderBy("id", "desc").limit(limit).offset(offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /** Streams the account's live leads that match the filter in id order, a page at a time (export). */
  async *iterate(
    db: Executor,
    caps: DialectCaps,
    accountId: string,
    filter: LeadFilter = {},
    pageSize = 500,
  ): AsyncGenerator<LeadsTable> {
    let after = "";
    for (;;) {
      const rows = await this.filtered(db, caps, accountId, filter)
        .selectAll("leads")
        .where("id", ">", after)
        .orderBy("id", "asc")
        .limit(pageSize)
        .execute();
      yield* rows;
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  /** The custom_fields of the leads `iterate` would stream, in the same order (export's columns). */
  async *iterateCustomFields(
    db: Executor,
    caps: DialectCaps,
    accountId: string,
    filter: LeadFilter = {},
    pageSize = 2000,
  ): AsyncGenerator<{ id: string; custom_fields: string }> {
    let after = "";
    for (;;) {
      const rows = await this.filtered(db, caps, accountId, filter)
        .select(["leads.id", "leads.custom_fields"])
        .where("id", ">", after)
        .orderBy("id", "asc")
        .limit(pageSize)
        .execute();
      yield* rows;
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  async stats(db: Executor, accountId: string) {
    const base = db.selectFrom("leads").where("account_id", "=", accountId).where("archived_at", "is", null);
    const [byStatus, byRec, avg, byVerdict] = await Promise.all([
      base
        .select(["validation_status as key", (eb) => eb.fn.countAll<number>().as("n")])
        .groupBy("validation_status")
        .execute(),
      base
        .select(["recommendation as key", (eb) => eb.fn.countAll<number>().as("n")])
        .where("validated_at", "is not", null)
        .groupBy("recommendation")
        .execute(),
      base
        .select((eb) => [eb.fn.avg<number>("rating").as("avg"), eb.fn.countAll<number>().as("n")])
        .where("validated_at", "is not", null)
        .executeTakeFirstOrThrow(),
      base
        .select(["email_status as key", (eb) => eb.fn.countAll<number>().as("n")])
        .where("validated_at", "is not", null)
        .groupBy("email_status")
        .execute(),
    ]);
    return {
      byStatus,
      byVerdict,
      byRec,
      averageRating: avg.avg === null ? null : Number(avg.avg),
      validated: Number(avg.n),
    };
  }
}
