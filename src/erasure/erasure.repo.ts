// The only SQL of erasure: every place a lead's personal data is held, found by the lead's id or
// its address (lower-cased, matched as a substring of JSON payloads), and removed or redacted.
import { type Kysely, sql, type Transaction } from "kysely";
import type { DialectCaps } from "../storage/dialect.js";
import type { Executor } from "../storage/executor.js";
import type { ErasureTombstonesTable, Schema } from "../storage/schema.js";

/** The lead's identifiers as they appear in stored text. */
export interface ErasureTerms {
  accountId: string;
  leadId: string;
  /** Lower-cased address. */
  email: string;
}

/** A LIKE pattern matching `text` anywhere, with LIKE's own characters escaped (`\` escapes). */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const ESCAPE = sql.raw("'\\'");

const ERASED_INPUT = "[erased]";

export class ErasureRepo {
  findLead(db: Executor, accountId: string, leadId: string) {
    return db
      .selectFrom("leads")
      .select(["id", "email", "email_lower", "normalized_email"])
      .where("id", "=", leadId)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
  }

  /** The account's leads (archived ones too) with this mailbox: its normalized form or its exact address. */
  async findLeadIdsByEmail(db: Executor, accountId: string, normalized: string, lower: string) {
    const rows = await db
      .selectFrom("leads")
      .select("id")
      .where("account_id", "=", accountId)
      .where((eb) => eb.or([eb("normalized_email", "=", normalized), eb("email_lower", "=", lower)]))
      .orderBy("id", "asc")
      .execute();
    return rows.map((row) => row.id);
  }

  findTombstone(db: Executor, accountId: string, leadId: string) {
    return db
      .selectFrom("erasure_tombstones")
      .selectAll()
      .where("lead_id", "=", leadId)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
  }

  async deleteLead(trx: Transaction<Schema>, terms: ErasureTerms): Promise<number> {
    const result = await trx
      .deleteFrom("leads")
      .where("id", "=", terms.leadId)
      .where("account_id", "=", terms.accountId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Batch items keep their place (the batch's counts and paging) but lose input, result and lead. */
  async redactBatchItems(trx: Transaction<Schema>, terms: ErasureTerms): Promise<number> {
    const pattern = containing(terms.email);
    const result = await trx
      .updateTable("batch_items")
      .set((eb) => ({
        input: ERASED_INPUT,
        result: null,
        lead_id: null,
        error: eb.case().when("status", "=", "pending").then("erased").else(eb.ref("error")).end(),
        status: eb
          .case()
          .when("status", "=", "pending")
          .then(sql.lit("failed"))
          .else(eb.ref("status"))
          .end() as never,
      }))
      .where("account_id", "=", terms.accountId)
      .where((eb) =>
        eb.or([
          eb("lead_id", "=", terms.leadId),
          sql<boolean>`lower(input) like ${pattern} escape ${ESCAPE}`,
          sql<boolean>`lower(result) like ${pattern} escape ${ESCAPE}`,
        ]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async deleteEvents(trx: Transaction<Schema>, terms: ErasureTerms): Promise<number> {
    const result = await trx
      .deleteFrom("events")
      .where("account_id", "=", terms.accountId)
      .where((eb) =>
        eb.or([
          sql<boolean>`payload like ${containing(terms.leadId)} escape ${ESCAPE}`,
          sql<boolean>`lower(payload) like ${containing(terms.email)} escape ${ESCAPE}`,
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Deliveries whose request or response (body, error, attempt log) names the lead. */
  async deleteDeliveries(trx: Transaction<Schema>, terms: ErasureTerms): Promise<number> {
    const id = containing(terms.leadId);
    const email = containing(terms.email);
    const result = await trx
      .deleteFrom("webhook_deliveries")
      .where("account_id", "=", terms.accountId)
      .where((eb) =>
        eb.or([
          sql<boolean>`payload like ${id} escape ${ESCAPE}`,
          sql<boolean>`lower(payload) like ${email} escape ${ESCAPE}`,
          sql<boolean>`lower(coalesce(response_body, '')) like ${email} escape ${ESCAPE}`,
          sql<boolean>`lower(coalesce(error_message, '')) like ${email} escape ${ESCAPE}`,
          sql<boolean>`lower(attempt_log) like ${email} escape ${ESCAPE}`,
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** One-off email checks of the address: their input and result. */
  async deleteValidationJobs(trx: Transaction<Schema>, terms: ErasureTerms): Promise<number> {
    const email = containing(terms.email);
    const result = await trx
      .deleteFrom("validation_jobs")
      .where("account_id", "=", terms.accountId)
      .where((eb) =>
        eb.or([
          sql<boolean>`lower(input) like ${email} escape ${ESCAPE}`,
          sql<boolean>`lower(coalesce(result, '')) like ${email} escape ${ESCAPE}`,
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Job payloads that name the lead: the embedded queue's table, and pg-boss's where it runs. */
  async deleteJobPayloads(trx: Transaction<Schema>, caps: DialectCaps, terms: ErasureTerms): Promise<number> {
    const id = containing(terms.leadId);
    const email = containing(terms.email);
    const embedded = await trx
      .deleteFrom("jobs")
      .where((eb) =>
        eb.or([
          sql<boolean>`data like ${id} escape ${ESCAPE}`,
          sql<boolean>`lower(data) like ${email} escape ${ESCAPE}`,
          sql<boolean>`lower(coalesce(output, '')) like ${email} escape ${ESCAPE}`,
        ]),
      )
      .executeTakeFirst();
    let removed = Number(embedded.numDeletedRows);
    if (caps.externalJobTable) {
      const table = sql.table(caps.externalJobTable);
      const exists = await sql<{
        found: string | null;
      }>`select to_regclass(${caps.externalJobTable})::text as found`.execute(trx);
      if (exists.rows[0]?.found) {
        const result = await sql`delete from ${table} where data::text like ${id} escape ${ESCAPE}
          or lower(data::text) like ${email} escape ${ESCAPE}
          or lower(coalesce(output::text, '')) like ${email} escape ${ESCAPE}`.execute(trx);
        removed += Number(result.numAffectedRows ?? 0);
      }
    }
    return removed;
  }

  /** Stored account export archives hold every lead: they go. */
  async deleteExports(trx: Transaction<Schema>, accountId: string): Promise<number> {
    const result = await trx
      .deleteFrom("account_exports")
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async insertTombstone(trx: Transaction<Schema>, row: ErasureTombstonesTable): Promise<void> {
    await trx
      .insertInto("erasure_tombstones")
      .values(row)
      .onConflict((oc) => oc.column("lead_id").doNothing())
      .execute();
  }

  /** Whether the account refuses erased addresses (its suppress_erased_emails setting). */
  async suppressionOn(db: Executor, accountId: string): Promise<boolean> {
    const row = await db
      .selectFrom("account_settings")
      .select("suppress_erased")
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    return row?.suppress_erased === 1;
  }

  /** Which of these tombstone HMACs the account refuses (none when its suppression is off). */
  async suppressedHmacs(
    db: Executor,
    accountId: string,
    emailHmacs: readonly string[],
  ): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < emailHmacs.length; i += 500) {
      const rows = await db
        .selectFrom("erasure_tombstones as t")
        .innerJoin("account_settings as s", "s.account_id", "t.account_id")
        .select("t.email_hmac")
        .where("t.account_id", "=", accountId)
        .where("t.email_hmac", "in", emailHmacs.slice(i, i + 500))
        .where("s.suppress_erased", "=", 1)
        .execute();
      for (const row of rows) if (row.email_hmac) found.add(row.email_hmac);
    }
    return found;
  }

  async isSuppressed(db: Executor, accountId: string, emailHmac: string): Promise<boolean> {
    const row = await db
      .selectFrom("erasure_tombstones as t")
      .innerJoin("account_settings as s", "s.account_id", "t.account_id")
      .select("t.lead_id")
      .where("t.account_id", "=", accountId)
      .where("t.email_hmac", "=", emailHmac)
      .where("s.suppress_erased", "=", 1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Makes the deleted bytes leave the files (outside any transaction). SQLite (secure_delete is on
   * from db.ts, so freed pages are zeroed): the search index is merged into one segment so the
   * deleted entries' old segments are freed, and the WAL is checkpointed and truncated, so no old
   * page image stays in it. PostgreSQL: VACUUM prunes the dead row versions and their index
   * entries (see docs/data-protection.md for what it does not do).
   */
  async scrub(db: Kysely<Schema>, caps: DialectCaps): Promise<void> {
    if (caps.leadSearch === "fts5_trigram") {
      await sql`insert into leads_search(leads_search) values ('optimize')`.execute(db);
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
      return;
    }
    await sql`vacuum leads, batch_items, events, webhook_deliveries, validation_jobs, jobs, account_exports`.execute(
      db,
    );
  }
}
