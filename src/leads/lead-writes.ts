// What the lead service and the lead import share: their dependencies, the validation scheduler
// they hand leads to, and the writes both make inside a transaction (insert with lead.created
// events, the upfront charge, the duplicate refusal).
import type { Transaction } from "kysely";
import type { CreditsService } from "../credits/credits.service.js";
import type { EventBus } from "../events/events.js";
import type { Clock } from "../lib/clock.js";
import { AppError } from "../lib/errors.js";
import { LimitRefused } from "../lib/limits.js";
import type { Database } from "../storage/db.js";
import type { LeadsTable, Schema } from "../storage/schema.js";
import type { WebsiteNormalizer } from "./lead-fields.js";
import type { LeadsRepo } from "./leads.repo.js";

/** Starts validation work; implemented by the batches module. Runs inside the caller's transaction. */
export interface ValidationScheduler {
  /** Queues validation of one lead inserted `processing` in this transaction (no batch): counts
   *  it toward the daily limit and sends its `lead.validate` job. */
  validateLead(trx: Transaction<Schema>, accountId: string, leadId: string): Promise<void>;
  /** Creates a lead validation batch over the leads and queues it; enforces the batch limits.
   *  `insertedProcessing`: the leads were inserted in this transaction with validation_status
   *  `processing` already (a bulk create or import), so they need no second write. */
  startLeadBatch(
    trx: Transaction<Schema>,
    accountId: string,
    leads: readonly { id: string; email: string }[],
    options: { webhookUrl: string | null; source: string; insertedProcessing: boolean },
  ): Promise<{ batchId: string; createdAt: string }>;
}

export interface LeadsDeps {
  database: Database;
  /** The leads table's repository, built by the module's factory. */
  repo: LeadsRepo;
  credits: CreditsService;
  events: EventBus;
  clock: Clock;
  normalizeWebsite: WebsiteNormalizer;
  scheduler: ValidationScheduler;
  prices: { leadCreateWithValidation: number; leadValidation: number };
}

/** Debits the account within the transaction. Not enough credits throws the refusal (a 402 once
 *  src/http maps it), which rolls the caller's transaction back. */
export async function chargeLeads(
  credits: CreditsService,
  trx: Transaction<Schema>,
  accountId: string,
  amountMilli: number,
  reason: string,
  reference: string,
): Promise<void> {
  const outcome = await credits.debitWithin(trx, { accountId, amountMilli, reason, reference });
  if (outcome.kind === "insufficient_credits") throw new LimitRefused(outcome);
}

/** Inserts leads with their lead.created events, many rows per statement. */
export async function insertLeads(
  repo: LeadsRepo,
  events: EventBus,
  trx: Transaction<Schema>,
  rows: LeadsTable[],
  now: Date,
): Promise<void> {
  await repo.insertMany(trx, rows);
  await events.emitMany(
    trx,
    rows.map((row) => ({
      type: "lead.created" as const,
      accountId: row.account_id,
      data: { leadId: row.id, email: row.email },
    })),
    now,
  );
}

/** The duplicate refusal names the lead that already holds the mailbox (aliases folded). */
export function duplicateLead(email: string, existing: { id: string; email: string } | undefined): AppError {
  if (!existing)
    return new AppError("DUPLICATE_LEAD", `A lead with email ${email} already exists`, { email });
  const same = existing.email.toLowerCase() === email.toLowerCase();
  return new AppError(
    "DUPLICATE_LEAD",
    same
      ? `A lead with email ${email} already exists (${existing.id})`
      : `A lead for the same mailbox already exists: ${existing.email} (${existing.id})`,
    { email, existingLeadId: existing.id, existingEmail: existing.email },
  );
}
