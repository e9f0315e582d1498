// The only SQL for accounts' balances and the credit ledger. Every balance change and its ledger
// entry are written in one transaction; a debit is a conditional UPDATE that never goes below zero.
import { sql, type Transaction } from "kysely";
import { firstIdAt, newId } from "../lib/ids.js";
import type { Executor } from "../storage/executor.js";
import type { CreditLedgerTable, Schema } from "../storage/schema.js";

export interface LedgerEntry {
  id: string;
  accountId: string;
  deltaMilli: number;
  balanceAfterMilli: number;
  kind: CreditLedgerTable["kind"];
  reason: string;
  reference: string | null;
  createdAt: string;
}

function toEntry(row: CreditLedgerTable): LedgerEntry {
  return {
    id: row.id,
    accountId: row.account_id,
    deltaMilli: Number(row.delta_milli),
    balanceAfterMilli: Number(row.balance_after_milli),
    kind: row.kind,
    reason: row.reason,
    reference: row.reference,
    createdAt: row.created_at,
  };
}

export class CreditsRepo {
  /** Creates the account with its signup grant unless it exists. Returns true when created. */
  async createAccountIfMissing(trx: Transaction<Schema>, accountId: string, initialMilli: number, now: Date) {
    const at = now.toISOString();
    const inserted = await trx
      .insertInto("accounts")
      .values({ id: accountId, balance_milli: initialMilli, created_at: at, updated_at: at })
      .onConflict((oc) => oc.column("id").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!inserted) return false;
    await trx
      .insertInto("credit_ledger")
      .values({
        id: newId("txn", now.getTime()),
        account_id: accountId,
        delta_milli: initialMilli,
        balance_after_milli: initialMilli,
        kind: "signup",
        reason: "New account credits",
        reference: null,
        idempotency_key: null,
        created_at: at,
      })
      .execute();
    return true;
  }

  async findAccount(db: Executor, accountId: string) {
    return db
      .selectFrom("accounts")
      .select(["id", "balance_milli", "created_at", "updated_at"])
      .where("id", "=", accountId)
      .executeTakeFirst();
  }

  async findEntryByIdempotencyKey(
    db: Executor,
    accountId: string,
    key: string,
  ): Promise<LedgerEntry | undefined> {
    const row = await db
      .selectFrom("credit_ledger")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("idempotency_key", "=", key)
      .executeTakeFirst();
    return row ? toEntry(row) : undefined;
  }

  /** Subtracts `amountMilli` only if the balance covers it; returns the new balance or undefined. */
  async debitIfEnough(trx: Transaction<Schema>, accountId: string, amountMilli: number, now: Date) {
    const row = await trx
      .updateTable("accounts")
      .set({
        balance_milli: sql<number>`balance_milli - ${amountMilli}`,
        updated_at: now.toISOString(),
      })
      .where("id", "=", accountId)
      .where("balance_milli", ">=", amountMilli)
      .returning("balance_milli")
      .executeTakeFirst();
    return row ? Number(row.balance_milli) : undefined;
  }

  async addToBalance(trx: Transaction<Schema>, accountId: string, amountMilli: number, now: Date) {
    const row = await trx
      .updateTable("accounts")
      .set({
        balance_milli: sql<number>`balance_milli + ${amountMilli}`,
        updated_at: now.toISOString(),
      })
      .where("id", "=", accountId)
      .returning("balance_milli")
      .executeTakeFirstOrThrow();
    return Number(row.balance_milli);
  }

  async appendEntry(
    trx: Transaction<Schema>,
    entry: Omit<LedgerEntry, "id" | "createdAt"> & { idempotencyKey: string | null },
    now: Date,
  ): Promise<LedgerEntry> {
    const row: CreditLedgerTable = {
      id: newId("txn", now.getTime()),
      account_id: entry.accountId,
      delta_milli: entry.deltaMilli,
      balance_after_milli: entry.balanceAfterMilli,
      kind: entry.kind,
      reason: entry.reason,
      reference: entry.reference,
      idempotency_key: entry.idempotencyKey,
      created_at: now.toISOString(),
    };
    await trx.insertInto("credit_ledger").values(row).execute();
    return toEntry(row);
  }

  async listEntries(db: Executor, accountId: string, limit: number, offset: number) {
    const [rows, count] = await Promise.all([
      db
        .selectFrom("credit_ledger")
        .selectAll()
        .where("account_id", "=", accountId)
        .orderBy("id", "desc")
        .limit(limit)
        .offset(offset)
        .execute(),
      db
        .selectFrom("credit_ledger")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("account_id", "=", accountId)
        .executeTakeFirstOrThrow(),
    ]);
    return { entries: rows.map(toEntry), total: Number(count.n) };
  }

  async sumEntries(db: Executor, accountId: string): Promise<number> {
    const row = await db
      .selectFrom("credit_ledger")
      .select((eb) => eb.fn.sum<number>("delta_milli").as("s"))
      .where("account_id", "=", accountId)
      .executeTakeFirstOrThrow();
    return Number(row.s ?? 0);
  }

  /** Milli-credits spent (debits) since `sinceIso`, as a positive number. */
  async spentSince(db: Executor, accountId: string, sinceIso: string): Promise<number> {
    const row = await db
      .selectFrom("credit_ledger")
      .select((eb) => eb.fn.sum<number>("delta_milli").as("s"))
      .where("account_id", "=", accountId)
      .where("kind", "=", "debit")
      // Ids sort by time and are never older than their row: the id bounds the scan of the account's
      // (account_id, id) index to the period instead of its whole history.
      .where("id", ">=", firstIdAt("txn", Date.parse(sinceIso)))
      .where("created_at", ">=", sinceIso)
      .executeTakeFirstOrThrow();
    return -Number(row.s ?? 0);
  }

  async lastGrant(db: Executor, accountId: string): Promise<LedgerEntry | undefined> {
    const row = await db
      .selectFrom("credit_ledger")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("kind", "in", ["grant", "purchase"])
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
    return row ? toEntry(row) : undefined;
  }
}
