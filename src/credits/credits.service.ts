// Credit rules (decisions §3): integer milli-credits, atomic upfront debits that never go below
// zero, an append-only ledger written with every balance change, idempotent debits for retried
// jobs, and credits.low / credits.depleted fired once on the crossing.

import type { Transaction } from "kysely";
import type { AuditActor, AuditTrail } from "../audit/audit.service.js";
import type { EventBus } from "../events/events.js";
import type { Clock } from "../lib/clock.js";
import { isTestSpace, liveAccountOf } from "../lib/data-space.js";
import type { Database } from "../storage/db.js";
import type { Schema } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import type { CreditsRepo, LedgerEntry } from "./credits.repo.js";

/** credits.low fires when a balance crosses below this (100 display credits = 0.1 stored). */
const LOW_BALANCE_THRESHOLD_MILLI = 100;

export interface DebitRequest {
  accountId: string;
  amountMilli: number;
  reason: string;
  /** What the debit paid for, e.g. a job or batch id. */
  reference?: string | null;
  /** A retried job passes the same key and is never charged twice. */
  idempotencyKey?: string | null;
}

export interface GrantRequest {
  accountId: string;
  amountMilli: number;
  reason: string;
  kind: "grant" | "purchase";
  /** A purchase's payment id. */
  reference?: string | null;
  idempotencyKey?: string | null;
  /** Recorded in the audit log (in this transaction) when given. */
  actor?: AuditActor;
}

export type DebitOutcome =
  | { kind: "debited"; balanceMilli: number; entry: LedgerEntry | null; alreadyApplied: boolean }
  | { kind: "insufficient_credits"; requiredMilli: number; availableMilli: number };

export interface CreditBalance {
  userId: string;
  credits: number;
  displayCredits: number;
  updatedAt: string;
  usedThisMonth: number;
  lastPurchase: { credits: number; at: string } | null;
}

export const toStoredCredits = (milli: number) => milli / 1000;

/** Stored credits (up to 3 decimals) to milli-credits; undefined when not a whole milli-credit. */
export function milliFromStoredCredits(credits: number): number | undefined {
  const milli = Math.round(credits * 1000);
  return Math.abs(milli - credits * 1000) < 1e-6 && Number.isSafeInteger(milli) ? milli : undefined;
}

export class CreditsService {
  constructor(
    private readonly deps: {
      database: Database;
      /** Its repository, built by the module's factory. */
      repo: CreditsRepo;
      events: EventBus;
      clock: Clock;
      newAccountMilliCredits: number;
      /** Grants and purchases are recorded here. */
      audit?: AuditTrail;
      /** Told of every debit written now (metrics): not refusals, not a retried job's re-debit.
       *  A debit whose transaction a later refusal rolls back is told too; the ledger is exact. */
      onDebited?: (amountMilli: number) => void;
    },
  ) {}

  /** Creates the account with its signup credits on first sight (decisions §2). */
  async ensureAccount(accountId: string): Promise<void> {
    const { db } = this.deps.database;
    if (await this.deps.repo.findAccount(db, accountId)) return;
    await runInTransaction(db, (trx) =>
      this.deps.repo.createAccountIfMissing(
        trx,
        accountId,
        this.deps.newAccountMilliCredits,
        this.deps.clock.now(),
      ),
    );
  }

  /** Debits in its own transaction; `then` runs inside it after a successful debit (e.g. to
   *  enqueue the job the debit pays for), so both commit or neither does. */
  async debit<T = undefined>(
    request: DebitRequest,
    then?: (trx: Transaction<Schema>, outcome: DebitOutcome & { kind: "debited" }) => Promise<T>,
  ): Promise<{ outcome: DebitOutcome; result: T | undefined }> {
    return runInTransaction(this.deps.database.db, async (trx) => {
      const outcome = await this.debitWithin(trx, request);
      if (outcome.kind !== "debited" || !then) return { outcome, result: undefined };
      return { outcome, result: await then(trx, outcome) };
    });
  }

  /** Debits inside the caller's transaction. A test data space (ADR 0051) is never charged: the
   *  debit succeeds, writes nothing and leaves the balance as it is. */
  async debitWithin(trx: Transaction<Schema>, request: DebitRequest): Promise<DebitOutcome> {
    const { accountId, amountMilli } = request;
    if (!Number.isSafeInteger(amountMilli) || amountMilli < 0) {
      throw new Error(`debit amount must be a non-negative integer of milli-credits, got ${amountMilli}`);
    }
    const now = this.deps.clock.now();
    if (isTestSpace(accountId)) {
      await this.deps.repo.createAccountIfMissing(trx, accountId, this.deps.newAccountMilliCredits, now);
      const account = await this.deps.repo.findAccount(trx, accountId);
      return {
        kind: "debited",
        balanceMilli: Number(account?.balance_milli ?? 0),
        entry: null,
        alreadyApplied: false,
      };
    }
    if (request.idempotencyKey) {
      const existing = await this.deps.repo.findEntryByIdempotencyKey(trx, accountId, request.idempotencyKey);
      if (existing) {
        const account = await this.deps.repo.findAccount(trx, accountId);
        return {
          kind: "debited",
          balanceMilli: Number(account?.balance_milli ?? 0),
          entry: existing,
          alreadyApplied: true,
        };
      }
    }
    if (amountMilli === 0) {
      const account = await this.deps.repo.findAccount(trx, accountId);
      return {
        kind: "debited",
        balanceMilli: Number(account?.balance_milli ?? 0),
        entry: null,
        alreadyApplied: false,
      };
    }
    const balanceMilli = await this.deps.repo.debitIfEnough(trx, accountId, amountMilli, now);
    if (balanceMilli === undefined) {
      const account = await this.deps.repo.findAccount(trx, accountId);
      return {
        kind: "insufficient_credits",
        requiredMilli: amountMilli,
        availableMilli: Number(account?.balance_milli ?? 0),
      };
    }
    const entry = await this.deps.repo.appendEntry(
      trx,
      {
        accountId,
        deltaMilli: -amountMilli,
        balanceAfterMilli: balanceMilli,
        kind: "debit",
        reason: request.reason,
        reference: request.reference ?? null,
        idempotencyKey: request.idempotencyKey ?? null,
      },
      now,
    );
    await this.emitCrossings(trx, accountId, balanceMilli + amountMilli, balanceMilli, now);
    this.deps.onDebited?.(amountMilli);
    return { kind: "debited", balanceMilli, entry, alreadyApplied: false };
  }

  async grant(
    accountId: string,
    amountMilli: number,
    reason: string,
    actor?: AuditActor,
  ): Promise<CreditBalance> {
    await runInTransaction(this.deps.database.db, (trx) =>
      this.grantWithin(trx, { accountId, amountMilli, reason, kind: "grant", ...(actor ? { actor } : {}) }),
    );
    return this.balance(accountId);
  }

  /** Adds credits inside the caller's transaction (creating the account on first sight) and writes
   *  the ledger entry; a purchase passes its payment id as `reference`. */
  async grantWithin(trx: Transaction<Schema>, request: GrantRequest): Promise<LedgerEntry> {
    const { accountId, amountMilli } = request;
    if (!Number.isSafeInteger(amountMilli) || amountMilli <= 0) {
      throw new Error(`grant amount must be a positive integer of milli-credits, got ${amountMilli}`);
    }
    const now = this.deps.clock.now();
    await this.deps.repo.createAccountIfMissing(trx, accountId, this.deps.newAccountMilliCredits, now);
    const balanceMilli = await this.deps.repo.addToBalance(trx, accountId, amountMilli, now);
    const entry = await this.deps.repo.appendEntry(
      trx,
      {
        accountId,
        deltaMilli: amountMilli,
        balanceAfterMilli: balanceMilli,
        kind: request.kind,
        reason: request.reason,
        reference: request.reference ?? null,
        idempotencyKey: request.idempotencyKey ?? null,
      },
      now,
    );
    if (request.actor && this.deps.audit) {
      await this.deps.audit.record(trx, accountId, {
        actor: request.actor,
        action: request.kind === "purchase" ? "credits.purchased" : "credits.granted",
        target: { kind: "account", id: accountId },
        details: { milli_credits: amountMilli, reason: request.reason, reference: request.reference ?? null },
      });
    }
    return entry;
  }

  async balance(accountId: string): Promise<CreditBalance> {
    const { db } = this.deps.database;
    await this.ensureAccount(accountId);
    const now = this.deps.clock.now();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    const [account, used, last] = await Promise.all([
      this.deps.repo.findAccount(db, accountId),
      this.deps.repo.spentSince(db, accountId, monthStart),
      this.deps.repo.lastGrant(db, accountId),
    ]);
    const balanceMilli = Number(account?.balance_milli ?? 0);
    return {
      userId: liveAccountOf(accountId),
      credits: toStoredCredits(balanceMilli),
      displayCredits: balanceMilli,
      updatedAt: account?.updated_at ?? now.toISOString(),
      usedThisMonth: toStoredCredits(used),
      lastPurchase: last ? { credits: toStoredCredits(last.deltaMilli), at: last.createdAt } : null,
    };
  }

  async transactions(accountId: string, limit: number, offset: number) {
    await this.ensureAccount(accountId);
    return this.deps.repo.listEntries(this.deps.database.db, accountId, limit, offset);
  }

  /** Sum of the ledger; equals the balance by construction (tests assert it). */
  ledgerSum(accountId: string): Promise<number> {
    return this.deps.repo.sumEntries(this.deps.database.db, accountId);
  }

  private async emitCrossings(
    trx: Transaction<Schema>,
    accountId: string,
    beforeMilli: number,
    afterMilli: number,
    now: Date,
  ): Promise<void> {
    if (beforeMilli >= LOW_BALANCE_THRESHOLD_MILLI && afterMilli < LOW_BALANCE_THRESHOLD_MILLI) {
      await this.deps.events.emit(
        trx,
        "credits.low",
        accountId,
        {
          currentBalance: toStoredCredits(afterMilli),
          threshold: toStoredCredits(LOW_BALANCE_THRESHOLD_MILLI),
          creditsUsed: toStoredCredits(beforeMilli - afterMilli),
        },
        now,
      );
    }
    if (beforeMilli > 0 && afterMilli === 0) {
      await this.deps.events.emit(trx, "credits.depleted", accountId, { currentBalance: 0 }, now);
    }
  }
}
