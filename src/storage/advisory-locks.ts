// Transaction-scoped advisory locks: writers that check-then-insert a rule no index can hold
// (aliases of one mailbox, a count limit) take the same lock first, so the second waits for the
// first to commit and then sees its row. PostgreSQL only: SQLite runs one writer at a time.
import { sql, type Transaction } from "kysely";
import type { DialectCaps } from "./dialect.js";
import type { Schema } from "./schema.js";

/**
 * Takes pg_advisory_xact_lock(hashtext(scope), key) for each key, in ascending order so that two
 * transactions locking overlapping sets never wait on each other crosswise. Held until `trx` ends.
 * Keep the keys few (each is an entry in the server's shared lock table).
 */
export async function lockForTransaction(
  trx: Transaction<Schema>,
  caps: DialectCaps,
  scope: string,
  keys: number[],
): Promise<void> {
  if (!caps.concurrentWriters || keys.length === 0) return;
  const sorted = [...new Set(keys)].sort((a, b) => a - b);
  await sql`select pg_advisory_xact_lock(hashtext(${scope}), k) from unnest(${sorted}::int[]) as k`.execute(
    trx,
  );
}
