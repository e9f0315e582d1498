// What the lead service and the lead import share: their dependencies, the validation scheduler
// they hand leads to, and the writes both make inside a transaction (insert with lead.created
// events, the upfront charge, the duplicate refusal).
import type { Transaction } from "kysely";
import type { CreditsService } from "../credits/credits.service.js";
import type { EventBus } from "../events/events.js";
import type { Clock } from "../lib/clock.js";
import { type DomainError, fail, notFound } from "../lib/errors.js";
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

/** Addresses an account refuses to take back: erased, with suppress_erased_emails on (issue 25).
 *  The erasure module implements it. */
export interface SuppressionCheck {
  suppressedAmong(accountId: string, emails: readonly string[]): Promise<ReadonlySet<string>>;
}

/** Why an item of an import or sync was skipped. */
export const SUPPRESSED_REASON =
  "suppressed: this address was erased from the account, which refuses erased addresses (suppress_erased_emails)";

export function suppressedLead(email: string): DomainError {
  return fail({
    kind: "suppressed",
    message: `${email} was erased from this account, which refuses erased addresses (settings: suppress_erased_emails)`,
    details: { email, setting: "suppress_erased_emails" },
  });
}

export interface LeadsDeps {
  database: Database;
  /** Without it nothing is suppressed. */
  suppression?: SuppressionCheck;
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
  if (outcome.kind === "insufficient_credits") throw fail(outcome);
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
export function duplicateLead(
  email: string,
  existing: { id: string; email: string } | undefined,
): DomainError {
  if (!existing)
    return fail({
      kind: "duplicate",
      message: `A lead with email ${email} already exists`,
      details: { email },
    });
  const same = existing.email.toLowerCase() === email.toLowerCase();
  return fail({
    kind: "duplicate",
    message: same
      ? `A lead with email ${email} already exists (${existing.id})`
      : `A lead for the same mailbox already exists: ${existing.email} (${existing.id})`,
    details: { email, existingLeadId: existing.id, existingEmail: existing.email },
  });
}

/** Some of the given ids are not the account's live leads: the whole request is refused. */
export function missingLeads(ids: string[]): DomainError {
  return notFound(`${ids.length} lead(s)`, { missingLeadIds: ids });
}
