// The only SQL for batches, their items and daily usage.
import { sql, type Transaction } from "kysely";
import { updateRowsById } from "../storage/bulk-update.js";
import { insertInChunks } from "../storage/chunked-insert.js";
import type { Executor } from "../storage/executor.js";
import type { BatchesTable, BatchItemsTable, Schema } from "../storage/schema.js";

/** What finishing a batch item records. */
export type ItemOutcome = Pick<BatchItemsTable, "status" | "verdict" | "result" | "error" | "completed_at">;

export class BatchesRepo {
  insertBatch(db: Executor, row: BatchesTable) {
    return db.insertInto("batches").values(row).execute();
  }

  /** Many rows per statement, within the database's parameter limit. */
  insertItems(db: Executor, rows: BatchItemsTable[]) {
    return insertInChunks(db, "batch_items", rows);
  }

  find(db: Executor, batchId: string) {
    return db.selectFrom("batches").selectAll().where("id", "=", batchId).executeTakeFirst();
  }

  /** The account's batches, newest first (ids sort by time). */
  async listOfAccount(db: Executor, accountId: string, limit: number, offset: number) {
    const base = db.selectFrom("batches").where("account_id", "=", accountId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy("id", "desc").limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  findOfAccount(db: Executor, accountId: string, batchId: string) {
    return db
      .selectFrom("batches")
      .selectAll()
      .where("id", "=", batchId)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
  }

  findOfAccountBySource(db: Executor, accountId: string, source: string) {
    return db
      .selectFrom("batches")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("source", "=", source)
      .orderBy("id")
      .executeTakeFirst();
  }

  async countRunning(db: Executor, accountId: string): Promise<number> {
    const row = await db
      .selectFrom("batches")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", accountId)
      .where("status", "=", "processing")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Adds `n` to today's validations unless that passes `limit`; false when it would. */
  async addDailyUsage(trx: Transaction<Schema>, accountId: string, day: string, n: number, limit: number) {
    await trx
      .insertInto("usage_daily")
      .values({ account_id: accountId, day, validations: 0 })
      .onConflict((oc) => oc.columns(["account_id", "day"]).doNothing())
      .execute();
    const row = await trx
      .updateTable("usage_daily")
      .set({ validations: sql<number>`validations + ${n}` })
      .where("account_id", "=", accountId)
      .where("day", "=", day)
      .where(sql<boolean>`validations + ${n} <= ${limit}`)
      .returning("validations")
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The next pending items, grouped by their group key so one domain's items run together. */
  pendingItems(db: Executor, batchId: string, limit: number) {
    return db
      .selectFrom("batch_items")
      .selectAll()
      .where("batch_id", "=", batchId)
      .where("status", "=", "pending")
      .orderBy("group_key")
      .orderBy("seq")
      .limit(limit)
      .execute();
  }

  async countPending(db: Executor, batchId: string): Promise<number> {
    const row = await db
      .selectFrom("batch_items")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("batch_id", "=", batchId)
      .where("status", "=", "pending")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Marks items finished, each with its own outcome, unless they already were (a retried chunk,
   *  or another attempt): returns the ids of those that changed. One statement for them all. */
  finishItems(
    trx: Transaction<Schema>,
    items: readonly { id: string; changes: ItemOutcome }[],
  ): Promise<Set<string>> {
    return updateRowsById(trx, "batch_items", items, { status: "pending" });
  }

  addCounts(
    trx: Transaction<Schema>,
    batchId: string,
    d: { completed: number; valid: number; invalid: number; failed: number },
  ) {
    return trx
      .updateTable("batches")
      .set({
        completed: sql<number>`completed + ${d.completed}`,
        valid: sql<number>`valid + ${d.valid}`,
        invalid: sql<number>`invalid + ${d.invalid}`,
        failed: sql<number>`failed + ${d.failed}`,
      })
      .where("id", "=", batchId)
      .returning(["completed", "total", "progress_quarter", "valid", "invalid", "failed"])
      .executeTakeFirstOrThrow();
  }

  update(db: Executor, batchId: string, changes: Partial<BatchesTable>) {
    return db.updateTable("batches").set(changes).where("id", "=", batchId).execute();
  }

  /** Moves the batch to a final status once; false when another attempt already did. */
  async finish(trx: Transaction<Schema>, batchId: string, status: "completed" | "failed", at: string) {
    const r = await trx
      .updateTable("batches")
      .set({ status, completed_at: at })
      .where("id", "=", batchId)
      .where("status", "=", "processing")
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async items(db: Executor, batchId: string, limit: number, offset: number) {
    const [rows, count] = await Promise.all([
      db
        .selectFrom("batch_items")
        .selectAll()
        .where("batch_id", "=", batchId)
        .orderBy("seq")
        .limit(limit)
        .offset(offset)
        .execute(),
      db
        .selectFrom("batch_items")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("batch_id", "=", batchId)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /** Batches still `processing` that started before `cutoff` and finished no item since. */
  async stalledIds(db: Executor, cutoff: string, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom("batches as b")
      .select("b.id")
      .where("b.status", "=", "processing")
      .where("b.started_at", "<", cutoff)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("batch_items as i")
              .select("i.id")
              .whereRef("i.batch_id", "=", "b.id")
              .where("i.completed_at", ">=", cutoff),
          ),
        ),
      )
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }
}
