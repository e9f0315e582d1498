// Runs a batch: one chunk of pending items at a time (each chunk commits its items, the batch's
// counts and its progress events together, so a retried chunk skips what a crashed one finished),
// then completes the batch. failRemaining closes a batch whose job will never run again.
import type { Transaction } from "kysely";
import type { WebsiteChecker } from "../checks/website/website.types.js";
import type { EventBus } from "../events/events.js";
import type { LeadValidationService } from "../leads/validation/lead-validation.service.js";
import type { LeadValidation } from "../leads/validation/lead-validator.js";
import type { Clock } from "../lib/clock.js";
import { mapLimit } from "../lib/concurrency.js";
import type { Database } from "../storage/db.js";
import type { BatchesTable, BatchItemsTable, Schema } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import type { BatchesRepo, ItemOutcome } from "./batches.repo.js";
import { shortWebsiteResult } from "./batches.schemas.js";

export interface BatchRunnerDeps {
  /** Its repository, built by the module's factory. */
  repo: BatchesRepo;
  database: Database;
  events: EventBus;
  clock: Clock;
  /** Validates a chunk's leads and records the answers on them (the leads module). */
  leadValidation: LeadValidationService;
  website: WebsiteChecker;
  /** Items a batch job takes at a time; small enough to finish well within the job's expiry. */
  chunkSize?: number;
  /** Sends the unsigned ad-hoc callback of a batch started with `webhookUrl` (spec), once. */
  sendCallback?: (url: string, payload: Record<string, unknown>) => Promise<void>;
  /** Where errors that no caller sees go (a failed ad-hoc callback): the process's logger. */
  onError?: (error: unknown, context: string) => void;
}

interface Counts {
  completed: number;
  valid: number;
  invalid: number;
  failed: number;
}

export class BatchRunner {
  constructor(private readonly deps: BatchRunnerDeps) {}

  /** One chunk of a batch; true when more items remain (the caller queues the next chunk).
   *  `signal` (the job's) stops the chunk's checks; an aborted chunk records nothing and throws. */
  async runChunk(batchId: string, signal?: AbortSignal): Promise<boolean> {
    const { db } = this.deps.database;
    const batch = await this.deps.repo.find(db, batchId);
    if (batch?.status !== "processing") return false;
    const items = await this.deps.repo.pendingItems(db, batchId, this.deps.chunkSize ?? 250);
    if (items.length > 0) {
      if (batch.kind === "lead_validation") await this.runLeadItems(batch, items, signal);
      else await this.runDomainItems(batch, items, signal);
    }
    if ((await this.deps.repo.countPending(db, batchId)) > 0) return true;
    await this.complete(batchId);
    return false;
  }

  private async runLeadItems(
    batch: BatchesTable,
    items: BatchItemsTable[],
    signal?: AbortSignal,
  ): Promise<void> {
    const { db } = this.deps.database;
    const leadIds = items.flatMap((item) => (item.lead_id ? [item.lead_id] : []));
    const validations = await this.deps.leadValidation.validate(batch.account_id, leadIds, signal);
    signal?.throwIfAborted();
    const byLead = new Map(validations.map((validation) => [validation.leadId, validation]));
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const outcomes = items.map((item) => {
      const validation = item.lead_id ? byLead.get(item.lead_id) : undefined;
      const changes: ItemOutcome = {
        status: validation ? "done" : "failed",
        verdict: validation ? validation.rating.validationStatus : null,
        result: validation
          ? JSON.stringify({
              rating: validation.rating.rating,
              recommendation: validation.rating.recommendation,
              emailStatus: validation.email.status,
              emailReason: validation.email.reason,
            })
          : null,
        error: validation ? null : "lead not found or archived",
        completed_at: at,
      };
      return { id: item.id, changes, validation };
    });
    await runInTransaction(db, async (trx) => {
      // Items a crashed or concurrent attempt already finished are neither counted nor written.
      const changed = await this.deps.repo.finishItems(trx, outcomes);
      const counts: Counts = { completed: 0, valid: 0, invalid: 0, failed: 0 };
      const finished: LeadValidation[] = [];
      for (const { id, validation } of outcomes) {
        if (!changed.has(id)) continue;
        counts.completed++;
        if (!validation) {
          counts.failed++;
          continue;
        }
        if (validation.rating.validationStatus === "valid") counts.valid++;
        if (validation.rating.validationStatus === "invalid") counts.invalid++;
        finished.push(validation);
      }
      await this.deps.leadValidation.recordResults(trx, batch.account_id, finished, batch.id, now);
      await this.recordProgress(trx, batch, counts, now);
    });
  }

  private async runDomainItems(
    batch: BatchesTable,
    items: BatchItemsTable[],
    signal?: AbortSignal,
  ): Promise<void> {
    const options = { ...(signal ? { signal } : {}), accountId: batch.account_id };
    const results = await mapLimit(items, 50, (item) => this.deps.website.check(item.input, options));
    // Checks cut short by the signal are timeouts of ours, not answers about the sites.
    signal?.throwIfAborted();
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const outcomes = items.map((item, index) => {
      const result = results[index]!;
      const changes: ItemOutcome = {
        status: "done",
        verdict: result.status,
        result: JSON.stringify(shortWebsiteResult(result)),
        error: result.error,
        completed_at: at,
      };
      return { id: item.id, changes, isActive: result.status === "active" };
    });
    await runInTransaction(this.deps.database.db, async (trx) => {
      const changed = await this.deps.repo.finishItems(trx, outcomes);
      const counts: Counts = { completed: 0, valid: 0, invalid: 0, failed: 0 };
      for (const { id, isActive } of outcomes) {
        if (!changed.has(id)) continue;
        counts.completed++;
        if (isActive) counts.valid++;
        else counts.invalid++;
      }
      await this.recordProgress(trx, batch, counts, now);
    });
  }

  private async recordProgress(
    trx: Transaction<Schema>,
    batch: BatchesTable,
    counts: Counts,
    now: Date,
  ): Promise<void> {
    if (counts.completed === 0) return;
    const after = await this.deps.repo.addCounts(trx, batch.id, counts);
    const quarter = Math.min(3, Math.floor((Number(after.completed) / Number(after.total)) * 4));
    if (quarter <= Number(after.progress_quarter)) return;
    await this.deps.repo.update(trx, batch.id, { progress_quarter: quarter });
    for (let q = Number(after.progress_quarter) + 1; q <= quarter; q++) {
      await this.deps.events.emit(
        trx,
        "batch.progress",
        batch.account_id,
        {
          batchId: batch.id,
          progress: q * 25,
          completed: Number(after.completed),
          total: Number(after.total),
        },
        now,
      );
    }
  }

  /** Closes the batch once no item is pending. `failure`: the batch's job was given up, and the
   *  closing event is `validation.failed` with that error whatever the counts say. True when this
   *  call closed it (not another worker). */
  private async complete(batchId: string, failure?: string): Promise<boolean> {
    const { db } = this.deps.database;
    const now = this.deps.clock.now();
    const closed = await runInTransaction(db, async (trx) => {
      const batch = await this.deps.repo.find(trx, batchId);
      if (batch?.status !== "processing") return null;
      // A batch fails only when no item could be processed (decisions §5).
      const status = Number(batch.failed) >= Number(batch.total) ? "failed" : "completed";
      if (!(await this.deps.repo.finish(trx, batchId, status, now.toISOString()))) return null;
      const summary = {
        batchId,
        status: status === "completed" ? "complete" : "failed",
        totalLeads: Number(batch.total),
        successfulValidations: Number(batch.completed) - Number(batch.failed),
        failedValidations: Number(batch.failed),
        validLeads: Number(batch.valid),
        invalidLeads: Number(batch.invalid),
        type: batch.kind,
      };
      await this.deps.events.emit(trx, "batch.complete", batch.account_id, summary, now);
      if (failure !== undefined) {
        await this.deps.events.emit(
          trx,
          "validation.failed",
          batch.account_id,
          { ...summary, error: failure },
          now,
        );
      } else if (batch.kind === "lead_validation") {
        const type = status === "completed" ? "validation.complete" : "validation.failed";
        await this.deps.events.emit(trx, type, batch.account_id, summary, now);
      }
      const callback = batch.webhook_url
        ? {
            url: batch.webhook_url,
            payload: {
              event: "validation.complete",
              ...summary,
              userId: batch.account_id,
              timestamp: now.toISOString(),
            },
          }
        : undefined;
      return { callback };
    });
    const callback = closed?.callback;
    if (callback && this.deps.sendCallback) {
      await this.deps
        .sendCallback(callback.url, callback.payload)
        .catch((error: unknown) =>
          this.deps.onError?.(error, `ad-hoc callback of batch ${batchId} not sent`),
        );
    }
    return closed !== null;
  }

  /** The batch's job will never run again (its onExhausted hook, or the sweeper): its pending
   *  items fail with `error`, their leads end `risky`, and the batch closes with
   *  `validation.failed`. Idempotent: a closed batch is left alone (false). */
  async failRemaining(batchId: string, error: string): Promise<boolean> {
    const { db } = this.deps.database;
    const batch = await this.deps.repo.find(db, batchId);
    if (batch?.status !== "processing") return false;
    const now = this.deps.clock.now();
    const at = now.toISOString();
    for (;;) {
      const items = await this.deps.repo.pendingItems(db, batchId, 500);
      if (items.length === 0) break;
      await runInTransaction(db, async (trx) => {
        const changes: ItemOutcome = {
          status: "failed",
          verdict: null,
          result: null,
          error,
          completed_at: at,
        };
        const failed = (
          await this.deps.repo.finishItems(
            trx,
            items.map((item) => ({ id: item.id, changes })),
          )
        ).size;
        const leadIds = items.flatMap((item) => (item.lead_id ? [item.lead_id] : []));
        await this.deps.leadValidation.failLeads(trx, leadIds, at);
        await this.recordProgress(trx, batch, { completed: failed, valid: 0, invalid: 0, failed }, now);
      });
    }
    return this.complete(batchId, error);
  }
}
