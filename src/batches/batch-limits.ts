// The batch limits of decisions §5: at most N batches running per account, and a daily number of
// validations (batch items and single-lead validations alike). Checked inside the caller's
// transaction, after its debit: on PostgreSQL the debit's row lock on the account serializes
// concurrent batches of one account, so two cannot both pass the running-batch check.
import type { Transaction } from "kysely";
import type { Clock } from "../lib/clock.js";
import { AppError } from "../lib/errors.js";
import type { Schema } from "../storage/schema.js";
import { BatchesRepo } from "./batches.repo.js";

export interface BatchLimitsDeps {
  clock: Clock;
  limits: { maxConcurrentBatches: number; maxValidationsPerDay: number };
}

export class BatchLimits {
  private readonly repo = new BatchesRepo();

  constructor(private readonly deps: BatchLimitsDeps) {}

  /** A new batch of `items`: the running-batch limit, then the daily limit. */
  async enforceForBatch(trx: Transaction<Schema>, accountId: string, items: number): Promise<void> {
    const { maxConcurrentBatches } = this.deps.limits;
    if ((await this.repo.countRunning(trx, accountId)) >= maxConcurrentBatches) {
      throw new AppError(
        "CONCURRENT_BATCH_LIMIT",
        `At most ${maxConcurrentBatches} batches may run at once; wait for one to finish`,
        { limit: maxConcurrentBatches, retry_after: 10 },
        { retry_after: 10 },
        { "Retry-After": "10" },
      );
    }
    await this.enforceDaily(trx, accountId, items);
  }

  /** Counts `items` validations toward today's limit, or refuses them all. */
  async enforceDaily(trx: Transaction<Schema>, accountId: string, items: number): Promise<void> {
    const { maxValidationsPerDay } = this.deps.limits;
    const now = this.deps.clock.now();
    const day = now.toISOString().slice(0, 10);
    if (await this.repo.addDailyUsage(trx, accountId, day, items, maxValidationsPerDay)) return;
    const tomorrow = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
    const retryAfter = Math.max(1, Math.ceil((tomorrow - now.getTime()) / 1000));
    throw new AppError(
      "DAILY_LIMIT_EXCEEDED",
      `At most ${maxValidationsPerDay} validations per account per day`,
      { limit: maxValidationsPerDay, retry_after: retryAfter },
      { retry_after: retryAfter },
      { "Retry-After": String(retryAfter) },
    );
  }
}
