// Validation of one lead created or updated with `validate: true`, outside any batch (its job is
// queued by BatchesService.validateLead). failOne closes a lead whose job will never run again.
import type { EventBus } from "../events/events.js";
import { LeadsRepo } from "../leads/leads.repo.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { runInTransaction } from "../storage/transaction.js";
import { type LeadValidator, leadColumnsOf } from "../validation/lead-validator.js";
import { leadValidatedPayload } from "./batches.schemas.js";

const SINGLE_LEAD_EMAIL_BUDGET_MS = 4.5 * 60_000;

export interface LeadValidationDeps {
  database: Database;
  events: EventBus;
  clock: Clock;
  validator: LeadValidator;
}

export class LeadValidationService {
  private readonly leads = new LeadsRepo();

  constructor(private readonly deps: LeadValidationDeps) {}

  async validateOne(accountId: string, leadId: string, signal?: AbortSignal): Promise<void> {
    const { db } = this.deps.database;
    const lead = await this.leads.findLive(db, accountId, leadId);
    if (lead?.validation_status !== "processing") return;
    // One lead's job has its own 10-minute expiry: its email may wait RFC 5321's times, within
    // the 5 minutes every validation gets (batch chunks keep the interactive timeouts).
    const [validation] = await this.deps.validator.validate([lead], signal, {
      background: { budgetMs: SINGLE_LEAD_EMAIL_BUDGET_MS },
      accountId,
    });
    if (!validation) throw new Error(`the validator returned no answer for lead ${leadId}`);
    const now = this.deps.clock.now();
    await runInTransaction(db, async (trx) => {
      await this.leads.update(trx, accountId, leadId, leadColumnsOf(validation, now.toISOString()));
      await this.deps.events.emit(
        trx,
        "lead.validated",
        accountId,
        leadValidatedPayload(validation, null),
        now,
      );
    });
  }

  /** The lead's validation job will never run again: the lead ends `risky` and
   *  `validation.failed` carries the error. False when the lead was no longer processing. */
  async failOne(accountId: string, leadId: string, error: string): Promise<boolean> {
    const { db } = this.deps.database;
    const now = this.deps.clock.now();
    return runInTransaction(db, async (trx) => {
      if ((await this.leads.closeProcessing(trx, [leadId], now.toISOString())) === 0) return false;
      await this.deps.events.emit(trx, "validation.failed", accountId, { leadId, error }, now);
      return true;
    });
  }
}
