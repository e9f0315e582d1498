// Transactions with after-commit effects. Work that must follow a commit (an in-process event
// hint, waking a job worker) registers through `afterCommit` and runs only once the transaction
// has committed: never for a rolled-back change, and never before the rows it points at are
// visible to other connections. An effect that throws is reported, not thrown: the commit stands.
import type { Kysely, Transaction } from "kysely";
import type { Schema } from "./schema.js";

type Effect = () => unknown;
export type AfterCommit = (effect: Effect) => void;
type Executor = Kysely<Schema> | Transaction<Schema>;

let reportEffectError: (error: unknown) => void = (error) => {
  console.error("after-commit effect failed", error);
};

/** Where failed effects are reported (the process's logger; main.ts sets it once). */
export function reportAfterCommitErrorsTo(report: (error: unknown) => void): void {
  reportEffectError = report;
}

const pending = new WeakMap<Transaction<Schema>, Effect[]>();

export async function runInTransaction<T>(
  db: Kysely<Schema>,
  work: (trx: Transaction<Schema>, afterCommit: AfterCommit) => Promise<T>,
): Promise<T> {
  const effects: Effect[] = [];
  const result = await db.transaction().execute((trx) => {
    pending.set(trx, effects);
    return work(trx, (effect) => effects.push(effect));
  });
  for (const effect of effects) await runEffect(effect);
  return result;
}

/**
 * How to run an effect after `executor`'s writes are committed: queued on the transaction when it
 * was opened by runInTransaction, at once outside any transaction (autocommit). A transaction
 * opened some other way cannot tell when it commits: undefined, and the caller drops its hint
 * (hints only hurry what polling finds anyway: the outbox sweep, the job workers' poll).
 */
export function afterCommitOf(executor: Executor): AfterCommit | undefined {
  if (!executor.isTransaction) return (effect) => void runEffect(effect);
  const effects = pending.get(executor as Transaction<Schema>);
  return effects ? (effect) => effects.push(effect) : undefined;
}

async function runEffect(effect: Effect): Promise<void> {
  try {
    await effect();
  } catch (error) {
    reportEffectError(error);
  }
}
