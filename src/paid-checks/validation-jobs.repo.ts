// The only SQL for validation jobs (POST /v1/check-email, GET /v1/validation-jobs/{jobId} and the
// stalled-work sweeper). Writes that must commit with a debit, a job send or an event take the
// caller's transaction.
import type { Executor } from "../storage/executor.js";
import type { ValidationJobsTable } from "../storage/schema.js";

export type ValidationJobEnd = Pick<ValidationJobsTable, "status" | "result" | "error" | "completed_at">;

export class ValidationJobsRepo {
  async insert(trx: Executor, job: ValidationJobsTable): Promise<void> {
    await trx.insertInto("validation_jobs").values(job).execute();
  }

  findById(executor: Executor, jobId: string): Promise<ValidationJobsTable | undefined> {
    return executor.selectFrom("validation_jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
  }

  async setAttempts(trx: Executor, jobId: string, attempts: number): Promise<void> {
    await trx.updateTable("validation_jobs").set({ attempts }).where("id", "=", jobId).execute();
  }

  /** Ends a job that is still `processing`. False when it had already ended (another attempt won). */
  async finishIfProcessing(executor: Executor, jobId: string, end: ValidationJobEnd): Promise<boolean> {
    const updated = await executor
      .updateTable("validation_jobs")
      .set(end)
      .where("id", "=", jobId)
      .where("status", "=", "processing")
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /** Jobs still `processing` whose deadline passed before `cutoff` (the stalled-work sweeper). */
  async overdueIds(executor: Executor, cutoff: string, limit: number): Promise<string[]> {
    const rows = await executor
      .selectFrom("validation_jobs")
      .select("id")
      .where("status", "=", "processing")
      .where("deadline_at", "<", cutoff)
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /** Deletes jobs past their retention (`expires_at`); returns how many. */
  async deleteExpired(executor: Executor, nowIso: string): Promise<number> {
    const deleted = await executor
      .deleteFrom("validation_jobs")
      .where("expires_at", "<=", nowIso)
      .executeTakeFirst();
    return Number(deleted.numDeletedRows);
  }
}
