// The only SQL of retention: per-account settings, and purges in bounded chunks (the ids of at
// most `limit` doomed rows are read, then those rows are deleted or redacted by primary key).
import type { Kysely, Transaction } from "kysely";
import type { AccountSettingsTable, Schema } from "../storage/schema.js";

type Executor = Kysely<Schema> | Transaction<Schema>;

/** What a purged batch item's input becomes; its status and verdict stay for the batch's counts. */
const PURGED_INPUT = "[purged]";
/** What a purged delivery's request body becomes. */
const PURGED_PAYLOAD = "{}";

export class RetentionRepo {
  settings(db: Executor, accountId: string) {
    return db
      .selectFrom("account_settings")
      .selectAll()
      .where("account_id", "=", accountId)
      .executeTakeFirst();
  }

  async saveSettings(trx: Transaction<Schema>, row: AccountSettingsTable): Promise<void> {
    const { account_id: _id, ...changes } = row;
    await trx
      .insertInto("account_settings")
      .values(row)
      .onConflict((oc) => oc.column("account_id").doUpdateSet(changes))
      .execute();
  }

  /** Account ids after `afterId`, a page at a time (the purge walks every account). */
  async accountIds(db: Executor, afterId: string, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom("accounts")
      .select("id")
      .where("id", ">", afterId)
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  async deleteArchivedLeads(db: Executor, accountId: string, before: string, limit: number): Promise<number> {
    const doomed = await db
      .selectFrom("leads")
      .select("id")
      .where("account_id", "=", accountId)
      .where("archived_at", "is not", null)
      .where("archived_at", "<", before)
      .limit(limit)
      .execute();
    if (doomed.length === 0) return 0;
    await db
      .deleteFrom("leads")
      .where(
        "id",
        "in",
        doomed.map((row) => row.id),
      )
      .execute();
    return doomed.length;
  }

  async redactBatchItems(db: Executor, accountId: string, before: string, limit: number): Promise<number> {
    const doomed = await db
      .selectFrom("batch_items")
      .select("id")
      .where("account_id", "=", accountId)
      .where("completed_at", "<", before)
      .where((eb) => eb.or([eb("input", "!=", PURGED_INPUT), eb("result", "is not", null)]))
      .where("input", "!=", "[erased]")
      .limit(limit)
      .execute();
    if (doomed.length === 0) return 0;
    await db
      .updateTable("batch_items")
      .set({ input: PURGED_INPUT, result: null, lead_id: null })
      .where(
        "id",
        "in",
        doomed.map((row) => row.id),
      )
      .execute();
    return doomed.length;
  }

  async redactDeliveryBodies(
    db: Executor,
    accountId: string,
    before: string,
    limit: number,
  ): Promise<number> {
    const doomed = await db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("account_id", "=", accountId)
      .where("created_at", "<", before)
      .where("status", "!=", "pending")
      .where((eb) => eb.or([eb("payload", "!=", PURGED_PAYLOAD), eb("response_body", "is not", null)]))
      .limit(limit)
      .execute();
    if (doomed.length === 0) return 0;
    await db
      .updateTable("webhook_deliveries")
      .set({ payload: PURGED_PAYLOAD, response_body: null })
      .where(
        "id",
        "in",
        doomed.map((row) => row.id),
      )
      .execute();
    return doomed.length;
  }

  /**
   * Only a prefix of the chain goes (entries before the first one still within the period, even if
   * a later one has an older time from a skewed clock): what remains still verifies from its start.
   */
  async deleteAuditEntries(db: Executor, accountId: string, before: string, limit: number): Promise<number> {
    const firstKept = await db
      .selectFrom("audit_entries")
      .select((eb) => eb.fn.min("seq").as("seq"))
      .where("account_id", "=", accountId)
      .where("created_at", ">=", before)
      .executeTakeFirst();
    const doomed = await db
      .selectFrom("audit_entries")
      .select("id")
      .where("account_id", "=", accountId)
      .where("created_at", "<", before)
      .$if(firstKept?.seq != null, (qb) => qb.where("seq", "<", Number(firstKept?.seq)))
      .orderBy("seq")
      .limit(limit)
      .execute();
    if (doomed.length === 0) return 0;
    await db
      .deleteFrom("audit_entries")
      .where(
        "id",
        "in",
        doomed.map((row) => row.id),
      )
      .execute();
    return doomed.length;
  }
}
