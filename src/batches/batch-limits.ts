// The batch limits of decisions §5: at most N batches running per account, and a daily number of
// validations (batch items and single-lead validations alike). Checked inside the caller's
// transaction, after its debit: on PostgreSQL the debit's row lock on the account serializes
// concurrent batches of one account, so two cannot both pass the running-batch check. Refusals are
// tagged values (src/lib/limits.ts); http/errors.ts turns them into 429s.
import type { Transaction } from "kysely";
import type { Clock } from "../lib/clock.js";
import { fail } from "../lib/errors.js";
import type { LimitRefusal } from "../lib/limits.js";
import type { Schema } from "../storage/schema.js";
import type { BatchesRepo } from "./batches.repo.js";

export interface BatchLimitsDeps {
  /** Its repository, built by the module's factory. */
  repo: BatchesRepo;
  clock: Clock;
  limits: { maxConcurrentBatches: number; maxValidationsPerDay: number };
}

export class BatchLimits {
  constructor(private readonly deps: BatchLimitsDeps) {}

  /** A new batch of `items`: the running-batch limit, then the daily limit (its items are counted
   *  toward today when both pass). The refusal, if any, as a tagged value. */
  async checkBatch(
    trx: Transaction<Schema>,
    accountId: string,
    items: number,
  ): Promise<LimitRefusal | undefined> {
    const { maxConcurrentBatches } = this.deps.limits;
    if ((await this.deps.repo.countRunning(trx, accountId)) >= maxConcurrentBatches) {
      return { kind: "concurrent_batch_limit", limit: maxConcurrentBatches, retryAfterSeconds: 10 };
    }
    return this.checkDaily(trx, accountId, items);
  }

  /** Counts `items` validations toward today's limit, or refuses them all (until midnight UTC). */
  async checkDaily(
    trx: Transaction<Schema>,
    accountId: string,
    items: number,
  ): Promise<LimitRefusal | undefined> {
    const { maxValidationsPerDay } = this.deps.limits;
    const now = this.deps.clock.now();
    const day = now.toISOString().slice(0, 10);
    if (await this.deps.repo.addDailyUsage(trx, accountId, day, items, maxValidationsPerDay))
      return undefined;
    const tomorrow = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
    const retryAfterSeconds = Math.max(1, Math.ceil((tomorrow - now.getTime()) / 1000));
    return { kind: "daily_limit", limit: maxValidationsPerDay, retryAfterSeconds };
  }

  /** checkBatch, thrown as a DomainError so that the caller's transaction rolls back. */
  async enforceForBatch(trx: Transaction<Schema>, accountId: string, items: number): Promise<void> {
    const refusal = await this.checkBatch(trx, accountId, items);
    if (refusal) throw fail(refusal);
  }

  /** checkDaily, thrown as a DomainError so that the caller's transaction rolls back. */
  async enforceDaily(trx: Transaction<Schema>, accountId: string, items: number): Promise<void> {
    const refusal = await this.checkDaily(trx, accountId, items);
    if (refusal) throw fail(refusal);
  }
}
