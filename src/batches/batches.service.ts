// Validation batches (spec "Validation batch", decisions §5): created and charged in one
// transaction with their job, limited to 3 running per account and 100,000 validations per day,
// run in chunks by durable jobs so a crash or restart loses nothing and charges nothing twice.
import type { Transaction } from "kysely";
import type { CreditsService } from "../credits/credits.service.js";
import type { EventBus } from "../events/events.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { ValidationScheduler, WebsiteNormalizer } from "../leads/leads.service.js";
import { LEAD_VALIDATE_JOB } from "../leads/validation/lead-validation.schemas.js";
import type { LeadValidationService } from "../leads/validation/lead-validation.service.js";
import type { Clock } from "../lib/clock.js";
import { type FieldError, fail, invalid, notFound } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { pageOf } from "../lib/schema.js";
import type { Database } from "../storage/db.js";
import type { BatchItemsTable, Schema } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import type { BatchLimits } from "./batch-limits.js";
import type { BatchesRepo } from "./batches.repo.js";
import { BATCH_RUN_JOB, type BatchResult, type BatchView, toBatchView } from "./batches.schemas.js";

export interface BatchesDeps {
  /** Its repository, built by the module's factory. */
  repo: BatchesRepo;
  database: Database;
  credits: CreditsService;
  events: EventBus;
  clock: Clock;
  queue: JobQueue;
  limits: BatchLimits;
  /** Marks existing leads `processing` when a batch takes them (the leads module writes leads). */
  leadValidation: Pick<LeadValidationService, "markProcessing">;
  normalizeWebsite: WebsiteNormalizer;
  prices: { domainBatchItem: number };
}

const groupKeyOfEmail = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();

export class BatchesService implements ValidationScheduler {
  constructor(private readonly deps: BatchesDeps) {}

  async validateLead(trx: Transaction<Schema>, accountId: string, leadId: string): Promise<void> {
    // One lead's validation counts toward the daily limit like a batch item (not as a batch).
    await this.deps.limits.enforceDaily(trx, accountId, 1);
    await this.deps.queue.send(LEAD_VALIDATE_JOB, { accountId, leadId }, { trx });
  }

  async startLeadBatch(
    trx: Transaction<Schema>,
    accountId: string,
    leads: readonly { id: string; email: string }[],
    options: { webhookUrl: string | null; source: string; insertedProcessing: boolean },
  ): Promise<{ batchId: string; createdAt: string }> {
    await this.deps.limits.enforceForBatch(trx, accountId, leads.length);
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const batchId = newId("batch", now.getTime());
    await this.deps.repo.insertBatch(trx, {
      id: batchId,
      account_id: accountId,
      kind: "lead_validation",
      status: "processing",
      total: leads.length,
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
    await this.deps.repo.insertItems(
      trx,
      leads.map((lead, seq) =>
        newItem(batchId, accountId, seq, lead.email, groupKeyOfEmail(lead.email), lead.id, now),
      ),
    );
    if (!options.insertedProcessing) {
      await this.deps.leadValidation.markProcessing(
        trx,
        leads.map((lead) => lead.id),
        at,
      );
    }
    const data = { batchId, totalLeads: leads.length, type: "lead_validation" };
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
      throw invalid(
        errors.slice(0, 200),
        lines ? `${errors.length} bad line(s); no batch was started` : "Request validation failed",
      );
    }
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const batchId = newId("batch", now.getTime());
    const { db } = this.deps.database;
    await runInTransaction(db, async (trx) => {
      const amount = domains.length * this.deps.prices.domainBatchItem;
      const outcome = await this.deps.credits.debitWithin(trx, {
        accountId,
        amountMilli: amount,
        reason: `Domain batch (${domains.length})`,
        reference: batchId,
      });
      if (outcome.kind === "insufficient_credits") throw fail(outcome);
      await this.deps.limits.enforceForBatch(trx, accountId, domains.length);
      await this.deps.repo.insertBatch(trx, {
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
      await this.deps.repo.insertItems(
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
    const { rows, total } = await this.deps.repo.listOfAccount(
      this.deps.database.db,
      accountId,
      limit,
      offset,
    );
    return pageOf("batches", rows.map(toBatchView), total, { limit, offset });
  }

  async get(accountId: string, batchId: string): Promise<BatchView> {
    const b = await this.deps.repo.findOfAccount(this.deps.database.db, accountId, batchId);
    if (!b) throw notFound("Batch");
    return toBatchView(b);
  }

  /** The account's first batch started with this `source` (a sync finds the batch it started). */
  async findBySource(accountId: string, source: string): Promise<BatchView | null> {
    const b = await this.deps.repo.findOfAccountBySource(this.deps.database.db, accountId, source);
    return b ? toBatchView(b) : null;
  }

  async results(accountId: string, batchId: string, limit: number, offset: number) {
    const { db } = this.deps.database;
    const b = await this.deps.repo.findOfAccount(db, accountId, batchId);
    if (!b) throw notFound("Batch");
    const { rows, total } = await this.deps.repo.items(db, batchId, limit, offset);
    const results = rows.map(
      (r): BatchResult => ({
        index: Number(r.seq),
        input: r.input,
        leadId: r.lead_id,
        status: r.status === "pending" ? "pending" : r.status === "failed" ? "failed" : "completed",
        verdict: r.verdict,
        result: r.result ? JSON.parse(r.result) : null,
        error: r.error,
      }),
    );
    return { batchId, status: b.status, ...pageOf("results", results, total, { limit, offset }) };
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
