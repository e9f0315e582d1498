// The only SQL for the audit log. Every method takes the executor first so that an entry is written
// in the transaction of the change it records.
import type { Transaction } from "kysely";
import type { Executor } from "../storage/executor.js";
import type { AuditEntriesTable, Schema } from "../storage/schema.js";

export interface AuditFilter {
  action?: string | undefined;
  actorId?: string | undefined;
  actorKind?: string | undefined;
  targetId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  /** Only entries with a seq below this (newest-first paging). */
  beforeSeq?: number | undefined;
}

export class AuditRepo {
  /**
   * Advances the account's chain head by one and returns the new seq with the previous hash. The
   * UPDATE comes first so that its row lock (PostgreSQL) is held before the hash is read: a second
   * append to the account waits here until the first commits.
   */
  async advanceHead(trx: Transaction<Schema>, accountId: string): Promise<{ seq: number; prevHash: string }> {
    await trx
      .insertInto("audit_chain_heads")
      .values({ account_id: accountId, seq: 0, hash: "0".repeat(64) })
      .onConflict((oc) => oc.column("account_id").doNothing())
      .execute();
    const advanced = await trx
      .updateTable("audit_chain_heads")
      .set((eb) => ({ seq: eb("seq", "+", 1) }))
      .where("account_id", "=", accountId)
      .returning(["seq", "hash"])
      .executeTakeFirstOrThrow();
    return { seq: Number(advanced.seq), prevHash: advanced.hash };
  }

  async insertEntry(trx: Transaction<Schema>, row: AuditEntriesTable): Promise<void> {
    await trx.insertInto("audit_entries").values(row).execute();
    await trx
      .updateTable("audit_chain_heads")
      .set({ hash: row.hash })
      .where("account_id", "=", row.account_id)
      .execute();
  }

  list(db: Executor, accountId: string, filter: AuditFilter, limit: number): Promise<AuditEntriesTable[]> {
    let query = db.selectFrom("audit_entries").selectAll().where("account_id", "=", accountId);
    if (filter.action) query = query.where("action", "=", filter.action);
    if (filter.actorId) query = query.where("actor_id", "=", filter.actorId);
    if (filter.actorKind) query = query.where("actor_kind", "=", filter.actorKind as never);
    if (filter.targetId) query = query.where("target_id", "=", filter.targetId);
    if (filter.from) query = query.where("created_at", ">=", filter.from);
    if (filter.to) query = query.where("created_at", "<", filter.to);
    if (filter.beforeSeq !== undefined) query = query.where("seq", "<", filter.beforeSeq);
    return query.orderBy("seq", "desc").limit(limit).execute();
  }

  /** The chain in order, a page at a time (seq above `afterSeq`). */
  chainPage(db: Executor, accountId: string, afterSeq: number, limit: number): Promise<AuditEntriesTable[]> {
    return db
      .selectFrom("audit_entries")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("seq", ">", afterSeq)
      .orderBy("seq", "asc")
      .limit(limit)
      .execute();
  }

  head(db: Executor, accountId: string) {
    return db
      .selectFrom("audit_chain_heads")
      .select(["seq", "hash"])
      .where("account_id", "=", accountId)
      .executeTakeFirst();
  }

  /** Ids of at most `limit` of the account's entries older than `before` (oldest first). */
  expiredIds(db: Executor, accountId: string, before: string, limit: number) {
    return db
      .selectFrom("audit_entries")
      .select("id")
      .where("account_id", "=", accountId)
      .where("created_at", "<", before)
      .orderBy("seq", "asc")
      .limit(limit)
      .execute();
  }

  async deleteIds(db: Executor, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    await db.deleteFrom("audit_entries").where("id", "in", ids).execute();
    return ids.length;
  }
}
