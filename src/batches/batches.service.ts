// Validation batches (spec "Validation batch", decisions §5): created and charged in one
// transaction with their job, limited to 3 running per account and 100,000 validations per day,
// run in chunks by durable jobs so a crash or restart loses nothing and charges nothing twice.
import type { Transaction } from "kysely";
import type { WebsiteCheckResult } from "../checks/website/website.types.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { EventBus } from "../events/events.js";
import type { JobQueue } from "../jobs/job-queue.js";
import { LeadsRepo } from "../leads/leads.repo.js";
import type { ValidationScheduler, WebsiteNormalizer } from "../leads/leads.service.js";
import type { Clock } from "../lib/clock.js";
import { mapLimit } from "../lib/concurrency.js";
import { AppError, type FieldError, notFound, paymentRequired, validationError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import type { BatchesTable, BatchItemsTable, Schema } from "../storage/schema.js";
import type { WebsiteChecker } from "../validation/lead-validator.js";
import { type LeadValidator, leadColumnsOf } from "../validation/lead-validator.js";
import { BatchesRepo } from "./batches.repo.js";

export const BATCH_RUN_JOB = "batch.run";
export const LEAD_VALIDATE_JOB = "lead.validate";
const SINGLE_LEAD_EMAIL_BUDGET_MS = 4.5 * 60_000;
export const MAX_DOMAIN_BATCH = 10_000;

export interface BatchesDeps {
  database: Database;
  credits: CreditsService;
  events: EventBus;
  clock: Clock;
  queue: JobQueue;
  validator: LeadValidator;
  website: WebsiteChecker;
  normalizeWebsite: WebsiteNormalizer;
  prices: { domainBatchItem: number };
  limits: { maxConcurrentBatches: number; maxValidationsPerDay: number };
  /** Items a batch job takes at a time; small enough to finish well within the job's expiry. */
  chunkSize?: number;
  /** Sends the unsigned ad-hoc callback of a batch started with `webhookUrl` (spec), once. */
  sendCallback?: (url: string, payload: Record<string, unknown>) => Promise<void>;
}

export interface BatchView {
  batchId: string;
  type: string;
  status: string;
  createdAt: string;
  pollUrl: string;
  totalLeads: number;
  completedLeads: number;
  validLeads: number;
  invalidLeads: number;
  failedLeads: number;
  progress: number;
  completedAt: string | null;
}

export function toBatchView(b: BatchesTable): BatchView {
  return {
    batchId: b.id,
    type: b.kind,
    status: b.status,
    createdAt: b.created_at,
    pollUrl: `/v1/batches/${b.id}`,
    totalLeads: Number(b.total),
    completedLeads: Number(b.completed),
    validLeads: Number(b.valid),
    invalidLeads: Number(b.invalid),
    failedLeads: Number(b.failed),
    progress: b.total > 0 ? Math.round((Number(b.completed) / Number(b.total)) * 1000) / 10 : 100,
    completedAt: b.completed_at,
  };
}

const groupKeyOfEmail = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();

export class BatchesService implements ValidationScheduler {
  private readonly repo = new BatchesRepo();
  private readonly leads = new LeadsRepo();

  constructor(private readonly deps: BatchesDeps) {}

  async validateLead(trx: Transaction<Schema>, accountId: string, leadId: string): Promise<void> {
    // One lead's validation counts toward the daily limit like a batch item (not as a batch).
    await this.enforceDailyLimit(trx, accountId, 1);
    const at = this.deps.clock.now().toISOString();
    await this.leads.setStatus(trx, [leadId], "processing", at);
    await this.deps.queue.send(LEAD_VALIDATE_JOB, { accountId, leadId }, { trx });
  }

  /** Enforces the running-batch and daily limits inside the caller's transaction. Call it after
   *  the debit: on PostgreSQL the debit's row lock on the account serializes concurrent batches. */
  private async enforceLimits(trx: Transaction<Schema>, accountId: string, items: number): Promise<void> {
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
    await this.enforceDailyLimit(trx, accountId, items);
  }

  private async enforceDailyLimit(trx: Transaction<Schema>, accountId: string, items: number): Promise<void> {
    const { maxValidationsPerDay } = this.deps.limits;
    const day = this.deps.clock.now().toISOString().slice(0, 10);
    if (!(await this.repo.addDailyUsage(trx, accountId, day, items, maxValidationsPerDay))) {
      const tomorrow = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
      const retryAfter = Math.max(1, Math.ceil((tomorrow - this.deps.clock.now().getTime()) / 1000));
      throw new AppError(
        "DAILY_LIMIT_EXCEEDED",
        `At most ${maxValidationsPerDay} validations per account per day`,
        { limit: maxValidationsPerDay, retry_after: retryAfter },
        { retry_after: retryAfter },
        { "Retry-After": String(retryAfter) },
      );
    }
  }

  async startLeadBatch(
    trx: Transaction<Schema>,
    accountId: string,
    leadIds: string[],
    options: { webhookUrl: string | null; source: string },
  ): Promise<{ batchId: string; createdAt: string }> {
    await this.enforceLimits(trx, accountId, leadIds.length);
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const batchId = newId("batch", now.getTime());
    const rows = await trx.selectFrom("leads").select(["id", "email"]).where("id", "in", leadIds).execute();
    const emailOf = new Map(rows.map((r) => [r.id, r.email]));
    await this.repo.insertBatch(trx, {
      id: batchId,
      account_id: accountId,
      kind: "lead_validation",
      status: "processing",
      total: leadIds.length,
      completed: 0,
      valid: 0,
      invalid: 0,
      failed: 0,
      progress_quarter: 0,
      webhook_url: options.webhookUrl,
      source: options.source,
      created_at: at,
      started_at: at,
      completed_at: null,
    });
    await this.repo.insertItems(
      trx,
      leadIds.map((leadId, seq) => {
        const email = emailOf.get(leadId) ?? "";
        return newItem(batchId, accountId, seq, email, groupKeyOfEmail(email), leadId, now);
      }),
    );
    for (let i = 0; i < leadIds.length; i += 500) {
      await this.leads.setStatus(trx, leadIds.slice(i, i + 500), "processing", at);
    }
    const data = { batchId, totalLeads: leadIds.length, type: "lead_validation" };
    await this.deps.events.emit(trx, "batch.started", accountId, data, now);
    await this.deps.events.emit(trx, "validation.started", accountId, data, now);
    await this.deps.queue.send(BATCH_RUN_JOB, { batchId }, { trx, singletonKey: batchId });
    return { batchId, createdAt: at };
  }

  /** POST /v1/batch: 1-10,000 website checks, charged upfront per item. */
  /** All domains or none: any bad one refuses the batch (422), named by `domains.<index>`, or by
   *  `line <n>` when the domains come from a pasted list (`lines[i]` is domain i's line). */
  async createDomainBatch(accountId: string, domains: string[], lines?: number[]): Promise<BatchView> {
    const errors: FieldError[] = [];
    const urls = domains.map((d, i) => {
      const n = this.deps.normalizeWebsite(d);
      if (!n.ok) {
        const field = lines ? `line ${lines[i]}` : `domains.${i}`;
        errors.push({ field, message: lines ? `${d}: ${n.message}` : n.message, type: "format" });
      }
      return n.ok ? n.url : "";
    });
    if (errors.length > 0) {
      throw validationError(
        errors.slice(0, 200),
        lines ? `${errors.length} bad line(s); no batch was started` : "Request validation failed",
      );
    }
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const batchId = newId("batch", now.getTime());
    const { db } = this.deps.database;
    await db.transaction().execute(async (trx) => {
      const amount = domains.length * this.deps.prices.domainBatchItem;
      const outcome = await this.deps.credits.debitWithin(trx, {
        accountId,
        amountMilli: amount,
        reason: `Domain batch (${domains.length})`,
        reference: batchId,
      });
      if (outcome.kind === "insufficient_credits")
        throw paymentRequired(outcome.requiredMilli, outcome.availableMilli);
      await this.enforceLimits(trx, accountId, domains.length);
      await this.repo.insertBatch(trx, {
        id: batchId,
        account_id: accountId,
        kind: "domain_check",
        status: "processing",
        total: domains.length,
        completed: 0,
        valid: 0,
        invalid: 0,
        failed: 0,
        progress_quarter: 0,
        webhook_url: null,
        source: "api",
        created_at: at,
        started_at: at,
        completed_at: null,
      });
      await this.repo.insertItems(
        trx,
        urls.map((url, seq) => newItem(batchId, accountId, seq, url, new URL(url).hostname, null, now)),
      );
      await this.deps.events.emit(
        trx,
        "batch.started",
        accountId,
        { batchId, totalItems: domains.length, type: "domain_check" },
        now,
      );
      await this.deps.queue.send(BATCH_RUN_JOB, { batchId }, { trx, singletonKey: batchId });
    });
    return this.get(accountId, batchId);
  }

  /** The account's batches, newest first, with their live counts. */
  async list(accountId: string, limit: number, offset: number) {
    const { rows, total } = await this.repo.listOfAccount(this.deps.database.db, accountId, limit, offset);
    const hasMore = offset + rows.length < total;
    return {
      batches: rows.map(toBatchView),
      total,
      limit,
      offset,
      hasMore,
      nextOffset: hasMore ? offset + rows.length : null,
    };
  }

  async get(accountId: string, batchId: string): Promise<BatchView> {
    const b = await this.repo.findOfAccount(this.deps.database.db, accountId, batchId);
    if (!b) throw notFound("Batch");
    return toBatchView(b);
  }

  async results(accountId: string, batchId: string, limit: number, offset: number) {
    const { db } = this.deps.database;
    const b = await this.repo.findOfAccount(db, accountId, batchId);
    if (!b) throw notFound("Batch");
    const { rows, total } = await this.repo.items(db, batchId, limit, offset);
    const hasMore = offset + rows.length < total;
    return {
      batchId,
      status: b.status,
      results: rows.map((r) => ({
        index: Number(r.seq),
        input: r.input,
        leadId: r.lead_id,
        status: r.status === "pending" ? "pending" : r.status === "failed" ? "failed" : "completed",
        verdict: r.verdict,
        result: r.result ? JSON.parse(r.result) : null,
        error: r.error,
      })),
      total,
      limit,
      offset,
      hasMore,
      nextOffset: hasMore ? offset + rows.length : null,
    };
  }

  /** One chunk of a batch; true when more items remain (the caller queues the next chunk). */
  async runChunk(batchId: string): Promise<boolean> {
    const { db } = this.deps.database;
    const batch = await this.repo.find(db, batchId);
    if (batch?.status !== "processing") return false;
    const items = await this.repo.pendingItems(db, batchId, this.deps.chunkSize ?? 250);
    if (items.length > 0) {
      if (batch.kind === "lead_validation") await this.runLeadItems(batch, items);
      else await this.runDomainItems(batch, items);
    }
    if ((await this.repo.countPending(db, batchId)) > 0) return true;
    await this.complete(batchId);
    return false;
  }

  private async runLeadItems(batch: BatchesTable, items: BatchItemsTable[]): Promise<void> {
    const { db } = this.deps.database;
    const ids = items.map((i) => i.lead_id!).filter(Boolean);
    const leads = await db
      .selectFrom("leads")
      .select(["id", "email", "website", "archived_at"])
      .where("id", "in", ids)
      .execute();
    const live = new Map(leads.filter((l) => l.archived_at === null).map((l) => [l.id, l]));
    const validations = await this.deps.validator.validate([...live.values()]);
    const byLead = new Map(validations.map((v) => [v.leadId, v]));
    const now = this.deps.clock.now();
    const at = now.toISOString();
    await db.transaction().execute(async (trx) => {
      const counts = { completed: 0, valid: 0, invalid: 0, failed: 0 };
      const validated: { type: "lead.validated"; accountId: string; data: Record<string, unknown> }[] = [];
      for (const item of items) {
        const v = item.lead_id ? byLead.get(item.lead_id) : undefined;
        const changed = await this.repo.finishItem(trx, item.id, {
          status: v ? "done" : "failed",
          verdict: v ? v.rating.validationStatus : null,
          result: v
            ? JSON.stringify({
                rating: v.rating.rating,
                recommendation: v.rating.recommendation,
                emailStatus: v.email.status,
                emailReason: v.email.reason,
              })
            : null,
          error: v ? null : "lead not found or archived",
          completed_at: at,
        });
        if (!changed) continue;
        counts.completed++;
        if (!v) {
          counts.failed++;
          continue;
        }
        if (v.rating.validationStatus === "valid") counts.valid++;
        if (v.rating.validationStatus === "invalid") counts.invalid++;
        await this.leads.update(trx, batch.account_id, v.leadId, leadColumnsOf(v, at));
        validated.push({
          type: "lead.validated",
          accountId: batch.account_id,
          data: leadValidatedPayload(v, batch.id),
        });
      }
      await this.deps.events.emitMany(trx, validated, now);
      await this.recordProgress(trx, batch, counts, now);
    });
  }

  private async runDomainItems(batch: BatchesTable, items: BatchItemsTable[]): Promise<void> {
    const results = await mapLimit(items, 50, (item) => this.deps.website.check(item.input));
    const now = this.deps.clock.now();
    const at = now.toISOString();
    await this.deps.database.db.transaction().execute(async (trx) => {
      const counts = { completed: 0, valid: 0, invalid: 0, failed: 0 };
      for (const [i, item] of items.entries()) {
        const r = results[i]!;
        const changed = await this.repo.finishItem(trx, item.id, {
          status: "done",
          verdict: r.status,
          result: JSON.stringify(shortWebsiteResult(r)),
          error: r.error,
          completed_at: at,
        });
        if (!changed) continue;
        counts.completed++;
        if (r.status === "active") counts.valid++;
        else counts.invalid++;
      }
      await this.recordProgress(trx, batch, counts, now);
    });
  }

  private async recordProgress(
    trx: Transaction<Schema>,
    batch: BatchesTable,
    counts: { completed: number; valid: number; invalid: number; failed: number },
    now: Date,
  ): Promise<void> {
    if (counts.completed === 0) return;
    const after = await this.repo.addCounts(trx, batch.id, counts);
    const quarter = Math.min(3, Math.floor((Number(after.completed) / Number(after.total)) * 4));
    if (quarter > Number(after.progress_quarter)) {
      await this.repo.update(trx, batch.id, { progress_quarter: quarter });
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
  }

  private async complete(batchId: string): Promise<void> {
    const { db } = this.deps.database;
    const now = this.deps.clock.now();
    const callback = await db.transaction().execute(async (trx) => {
      const b = await this.repo.find(trx, batchId);
      if (b?.status !== "processing") return undefined;
      // A batch fails only when no item could be processed (decisions §5).
      const status = Number(b.failed) >= Number(b.total) ? "failed" : "completed";
      if (!(await this.repo.finish(trx, batchId, status, now.toISOString()))) return undefined;
      const summary = {
        batchId,
        status: status === "completed" ? "complete" : "failed",
        totalLeads: Number(b.total),
        successfulValidations: Number(b.completed) - Number(b.failed),
        failedValidations: Number(b.failed),
        validLeads: Number(b.valid),
        invalidLeads: Number(b.invalid),
        type: b.kind,
      };
      await this.deps.events.emit(trx, "batch.complete", b.account_id, summary, now);
      if (b.kind === "lead_validation") {
        await this.deps.events.emit(
          trx,
          status === "completed" ? "validation.complete" : "validation.failed",
          b.account_id,
          summary,
          now,
        );
      }
      return b.webhook_url
        ? {
            url: b.webhook_url,
            payload: {
              event: "validation.complete",
              ...summary,
              userId: b.account_id,
              timestamp: now.toISOString(),
            },
          }
        : undefined;
    });
    if (callback && this.deps.sendCallback)
      await this.deps.sendCallback(callback.url, callback.payload).catch(() => {});
  }

  /** The final attempt of a batch job failed: finish its remaining items as failed so no lead
   *  stays in `processing` forever, and close the batch. */
  async failRemaining(batchId: string, error: string): Promise<void> {
    const { db } = this.deps.database;
    const batch = await this.repo.find(db, batchId);
    if (batch?.status !== "processing") return;
    const now = this.deps.clock.now();
    const at = now.toISOString();
    for (;;) {
      const items = await this.repo.pendingItems(db, batchId, 500);
      if (items.length === 0) break;
      await db.transaction().execute(async (trx) => {
        let failed = 0;
        for (const item of items) {
          if (
            await this.repo.finishItem(trx, item.id, {
              status: "failed",
              verdict: null,
              result: null,
              error,
              completed_at: at,
            })
          )
            failed++;
        }
        const leadIds = items.map((i) => i.lead_id).filter((x): x is string => Boolean(x));
        if (leadIds.length > 0) {
          await trx
            .updateTable("leads")
            .set({ validation_status: "risky", updated_at: at })
            .where("id", "in", leadIds)
            .where("validation_status", "=", "processing")
            .execute();
        }
        await this.recordProgress(trx, batch, { completed: failed, valid: 0, invalid: 0, failed }, now);
      });
    }
    await this.complete(batchId);
  }

  /** Validation of one lead created with `validate: true`. */
  async validateOne(accountId: string, leadId: string): Promise<void> {
    const { db } = this.deps.database;
    const lead = await this.leads.findLive(db, accountId, leadId);
    if (lead?.validation_status !== "processing") return;
    // One lead's job has its own 10-minute expiry: its email may wait RFC 5321's times, within
    // the 5 minutes every validation gets (batch chunks keep the interactive timeouts).
    const [v] = await this.deps.validator.validate([lead], {
      background: { budgetMs: SINGLE_LEAD_EMAIL_BUDGET_MS },
    });
    const now = this.deps.clock.now();
    await db.transaction().execute(async (trx) => {
      await this.leads.update(trx, accountId, leadId, leadColumnsOf(v!, now.toISOString()));
      await this.deps.events.emit(trx, "lead.validated", accountId, leadValidatedPayload(v!, null), now);
    });
  }

  /** The final attempt of a single-lead validation failed. */
  async failOne(accountId: string, leadId: string, error: string): Promise<void> {
    const { db } = this.deps.database;
    const now = this.deps.clock.now();
    await db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable("leads")
        .set({ validation_status: "risky", updated_at: now.toISOString() })
        .where("id", "=", leadId)
        .where("validation_status", "=", "processing")
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) > 0) {
        await this.deps.events.emit(trx, "validation.failed", accountId, { leadId, error }, now);
      }
    });
  }
}

function newItem(
  batchId: string,
  accountId: string,
  seq: number,
  input: string,
  groupKey: string,
  leadId: string | null,
  now: Date,
): BatchItemsTable {
  return {
    id: newId("item", now.getTime()),
    batch_id: batchId,
    account_id: accountId,
    seq,
    lead_id: leadId,
    input,
    group_key: groupKey || "-",
    status: "pending",
    verdict: null,
    result: null,
    error: null,
    completed_at: null,
  };
}

function leadValidatedPayload(
  v: import("../validation/lead-validator.js").LeadValidation,
  batchId: string | null,
) {
  return {
    leadId: v.leadId,
    batchId,
    validationStatus: v.rating.validationStatus,
    deliverabilityRating: v.rating.rating,
    recommendation: v.rating.recommendation,
    emailValid: v.email.valid,
    emailReason: v.email.reason,
    domainHttpStatus: v.website?.httpStatus ?? null,
  };
}

export function shortWebsiteResult(r: WebsiteCheckResult) {
  const { details: _details, ...short } = r;
  return short;
}
