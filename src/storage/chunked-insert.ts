// Multi-row INSERTs split so that no statement binds more parameters than the database accepts.
import { type InsertObject, type Kysely, PostgresAdapter, type Transaction } from "kysely";
import type { DatabaseKind } from "../config/config.js";
import type { Schema } from "./schema.js";

/**
 * Bound parameters one statement may carry. SQLite: SQLITE_MAX_VARIABLE_NUMBER, 32766 since 3.32
 * (better-sqlite3 bundles a newer SQLite with the default). PostgreSQL: the wire protocol counts
 * a statement's parameters in 16 bits.
 */
export const MAX_BOUND_PARAMETERS = { sqlite: 32_766, postgres: 65_535 } as const satisfies Record<
  DatabaseKind,
  number
>;

type Executor = Kysely<Schema> | Transaction<Schema>;

/**
 * Row counts of the successive INSERTs for `rowCount` rows, none above `maxRows`: full chunks, then
 * the remainder in descending powers of two. SQLite keeps prepared statements by SQL text (500 of
 * them, src/storage/sqlite-dialect.ts), and one statement near the limit takes about 2.5 MB there;
 * a handful of fixed sizes per table, instead of one per remainder, bounds what inserts add to it.
 */
export function chunkRowCounts(rowCount: number, maxRows: number): number[] {
  const counts: number[] = [];
  let left = rowCount;
  for (; left >= maxRows; left -= maxRows) counts.push(maxRows);
  for (let size = 2 ** Math.floor(Math.log2(maxRows)); left > 0; size /= 2) {
    if (left < size) continue;
    counts.push(size);
    left -= size;
  }
  return counts;
}

/** Most rows of `columnCount` columns one statement may insert under `maxParameters`. */
export function maxRowsPerInsert(columnCount: number, maxParameters: number): number {
  return Math.max(1, Math.floor(maxParameters / Math.max(1, columnCount)));
}

/** The parameter limit of the database behind a Kysely instance or transaction (anything but
 *  PostgreSQL gets SQLite's, the lower one). */
export function maxBoundParametersOf(db: Executor): number {
  const kind: DatabaseKind = db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
  return MAX_BOUND_PARAMETERS[kind];
}

/** Inserts `rows` in order, many per statement, no statement over the database's parameter limit. */
export async function insertInChunks<T extends keyof Schema & string>(
  db: Executor,
  table: T,
  rows: readonly InsertObject<Schema, T>[],
): Promise<void> {
  if (rows.length === 0) return;
  // The statement names every column any of its rows has; count them all.
  const columns = new Set<string>();
  for (const row of rows) for (const column of Object.keys(row)) columns.add(column);
  const maxRows = maxRowsPerInsert(columns.size, maxBoundParametersOf(db));
  let start = 0;
  for (const count of chunkRowCounts(rows.length, maxRows)) {
    await db
      .insertInto(table)
      .values(rows.slice(start, start + count))
      .execute();
    start += count;
  }
}
