// Lead validation's one home for the rest of the code: the validator's answers become the lead's
// stored fields here, and nowhere else. A lead created or updated with `validate: true` runs as one
// `lead.validate` job (validateOne, failOne); a batch's runner validates its chunk through
// validate() and records it with recordResults(); failLeads() closes leads whose work is lost.
import type { Transaction } from "kysely";
import type { EventBus } from "../../events/events.js";
import type { Clock } from "../../lib/clock.js";
import type { Database } from "../../storage/db.js";
import type { Executor } from "../../storage/executor.js";
import type { Schema } from "../../storage/schema.js";
import { runInTransaction } from "../../storage/transaction.js";
import type { LeadsRepo } from "../leads.repo.js";
import { leadValidatedPayload } from "./lead-validation.schemas.js";
import { type LeadValidation, type LeadValidator, leadColumnsOf } from "./lead-validator.js";

const SINGLE_LEAD_EMAIL_BUDGET_MS = 4.5 * 60_000;

export interface LeadValidationDeps {
  database: Database;
  events: EventBus;
  clock: Clock;
  validator: LeadValidator;
  leads: LeadsRepo;
}

export class LeadValidationService {
  constructor(private readonly deps: LeadValidationDeps) {}

  /** The `lead.validate` job: validates one lead still `processing` and records its answer. */
  async validateOne(accountId: string, leadId: string, signal?: AbortSignal): Promise<void> {
    const { db } = this.deps.database;
    const lead = await this.deps.leads.findLive(db, accountId, leadId);
    if (lead?.validation_status !== "processing") return;
    // One lead's job has its own 10-minute expiry: its email may wait RFC 5321's times, within
    // the 5 minutes every validation gets (batch chunks keep the interactive timeouts).
    const [validation] = await this.deps.validator.validate([lead], signal, {
      background: { budgetMs: SINGLE_LEAD_EMAIL_BUDGET_MS },
      accountId,
    });
    if (!validation) throw new Error(`the validator returned no answer for lead ${leadId}`);
    const now = this.deps.clock.now();
    await runInTransaction(db, (trx) => this.recordResults(trx, accountId, [validation], null, now));
  }

  /** The lead's validation job will never run again: the lead ends `risky` and
   *  `validation.failed` carries the error. False when the lead was no longer processing. */
  async failOne(accountId: string, leadId: string, error: string): Promise<boolean> {
    const { db } = this.deps.database;
    const now = this.deps.clock.now();
    return runInTransaction(db, async (trx) => {
      if ((await this.failLeads(trx, [leadId], now.toISOString())) === 0) return false;
      await this.deps.events.emit(trx, "validation.failed", accountId, { leadId, error }, now);
      return true;
    });
  }

  /** Validates the live leads among `leadIds` (archived ones are skipped): one answer per lead.
   *  `signal` stops the checks and rejects (see LeadValidator.validate). */
  async validate(accountId: string, leadIds: string[], signal?: AbortSignal): Promise<LeadValidation[]> {
    const live = await this.deps.leads.findLiveForValidation(this.deps.database.db, leadIds);
    // The account names the data space: a test space's leads get scripted checks (ADR 0051).
    return this.deps.validator.validate(live, signal, { accountId });
  }

  /** Leads handed to a batch after their creation: `processing` until the batch reaches them. */
  async markProcessing(trx: Transaction<Schema>, leadIds: string[], at: string): Promise<void> {
    for (let i = 0; i < leadIds.length; i += 500) {
      await this.deps.leads.setStatus(trx, leadIds.slice(i, i + 500), "processing", at);
    }
  }

  /** Stores the answers on their leads and emits one `lead.validated` each, in the caller's
   *  transaction. `batchId`: the batch that validated them, null for a single lead. */
  async recordResults(
    trx: Transaction<Schema>,
    accountId: string,
    validations: readonly LeadValidation[],
    batchId: string | null,
    now: Date,
  ): Promise<void> {
    if (validations.length === 0) return;
    const at = now.toISOString();
    await this.deps.leads.updateMany(
      trx,
      accountId,
      validations.map((validation) => ({ id: validation.leadId, changes: leadColumnsOf(validation, at) })),
    );
    await this.deps.events.emitMany(
      trx,
      validations.map((validation) => ({
        type: "lead.validated" as const,
        accountId,
        data: leadValidatedPayload(validation, batchId),
      })),
      now,
    );
  }

  /** Leads whose validation could not finish end `risky` (decisions §5), those still
   *  `processing` only. Returns how many changed. */
  failLeads(executor: Executor, leadIds: string[], at: string): Promise<number> {
    return this.deps.leads.closeProcessing(executor, leadIds, at);
  }

  /** Leads `processing` since before `cutoff` outside any running batch (the sweeper). */
  stalledLeads(cutoff: string, limit: number) {
    return this.deps.leads.stalledProcessing(this.deps.database.db, cutoff, limit);
  }
}
