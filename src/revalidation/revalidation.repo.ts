// The only SQL of re-validation: the per-account schedule, the due ones, and the claim a run
// takes on its schedule (compare-and-set on next_run_at, with a lease a crashed run's retry takes
// over).
import type { Kysely, Transaction } from "kysely";
import type { RevalidationSchedulesTable, Schema } from "../storage/schema.js";

type Executor = Kysely<Schema> | Transaction<Schema>;

export class RevalidationRepo {
  find(db: Executor, accountId: string) {
    return db
      .selectFrom("revalidation_schedules")
      .selectAll()
      .where("account_id", "=", accountId)
      .executeTakeFirst();
  }

  async save(db: Executor, row: RevalidationSchedulesTable): Promise<void> {
    const { account_id: _id, created_at: _created, ...changes } = row;
    await db
      .insertInto("revalidation_schedules")
      .values(row)
      .onConflict((oc) => oc.column("account_id").doUpdateSet(changes))
      .execute();
  }

  async remove(db: Executor, accountId: string): Promise<boolean> {
    const result = await db
      .deleteFrom("revalidation_schedules")
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Schedules due at `now` that no live run holds (a claim older than `staleClaim` is dead). */
  due(db: Executor, now: string, staleClaim: string, limit: number) {
    return db
      .selectFrom("revalidation_schedules")
      .selectAll()
      .where("next_run_at", "<=", now)
      .where((eb) => eb.or([eb("claimed_at", "is", null), eb("claimed_at", "<", staleClaim)]))
      .orderBy("next_run_at", "asc")
      .limit(limit)
      .execute();
  }

  /** Takes the run due at `dueAt`; false when another run took it or the schedule changed. */
  async claim(db: Executor, accountId: string, dueAt: string, now: string, staleClaim: string) {
    const result = await db
      .updateTable("revalidation_schedules")
      .set({ claimed_at: now })
      .where("account_id", "=", accountId)
      .where("next_run_at", "=", dueAt)
      .where((eb) => eb.or([eb("claimed_at", "is", null), eb("claimed_at", "<", staleClaim)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Records the run due at `dueAt` and releases the claim (no-op if the schedule changed). */
  async finish(
    db: Executor,
    accountId: string,
    dueAt: string,
    outcome: Pick<
      RevalidationSchedulesTable,
      "next_run_at" | "last_run_at" | "last_run_status" | "last_run_leads" | "last_run_batch_id"
    >,
  ): Promise<void> {
    await db
      .updateTable("revalidation_schedules")
      .set({ ...outcome, claimed_at: null })
      .where("account_id", "=", accountId)
      .where("next_run_at", "=", dueAt)
      .execute();
  }
}
