// Multi-row INSERTs split so that no statement binds more parameters than the database accepts,
// each statement's SQL built by Kysely once per shape and reused.
import { CompiledQuery, type InsertObject, PostgresAdapter } from "kysely";
import type { DatabaseKind } from "../config/config.js";
import type { Executor } from "./executor.js";
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
  return MAX_BOUND_PARAMETERS[dialectOf(db)];
}

const dialectOf = (db: Executor): DatabaseKind =>
  db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";

/** Inserts `rows` in order, many per statement, no statement over the database's parameter limit. */
export async function insertInChunks<T extends keyof Schema & string>(
  db: Executor,
  table: T,
  rows: readonly InsertObject<Schema, T>[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = uniformColumns(rows);
  if (!columns) return insertUncached(db, table, rows);
  const kind = dialectOf(db);
  const maxRows = maxRowsPerInsert(columns.length, MAX_BOUND_PARAMETERS[kind]);
  let start = 0;
  for (const count of chunkRowCounts(rows.length, maxRows)) {
    const chunk = count === rows.length ? rows : rows.slice(start, start + count);
    const parameters = new Array<unknown>(count * columns.length);
    let p = 0;
    for (const row of chunk)
      for (const column of columns) parameters[p++] = (row as Record<string, unknown>)[column];
    const text = compiledInsert(
      kind,
      table,
      count,
      columns,
      () => db.insertInto(table).values(chunk).compile().sql,
    );
    await db.executeQuery(CompiledQuery.raw(text, parameters));
    start += count;
  }
}

/**
 * SQL of the inserts made so far, by dialect, table and row count, then by columns. Kysely builds
 * and compiles an INSERT's syntax tree on every call, one node per value: for a 47-column lead that
 * cost more than SQLite's own insert. The shapes are few (tables x chunkRowCounts sizes).
 */
const compiledInserts = new Map<string, { columns: string[]; sql: string }[]>();
const COMPILED_INSERTS_MAX = 256;

function compiledInsert(
  kind: DatabaseKind,
  table: string,
  count: number,
  columns: string[],
  compile: () => string,
): string {
  const key = `${kind}:${table}:${count}`;
  const shapes = compiledInserts.get(key) ?? [];
  const known = shapes.find((shape) => sameColumns(shape.columns, columns));
  if (known) return known.sql;
  const sql = compile();
  if (compiledInserts.size >= COMPILED_INSERTS_MAX)
    compiledInserts.delete(compiledInserts.keys().next().value!);
  compiledInserts.set(key, [...shapes, { columns, sql }]);
  return sql;
}

function sameColumns(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The columns of `rows` when every row has the same ones, in the same order, and only plain values
 * (text, numbers, null): then Kysely's SQL for one such chunk holds for all, its parameters taken
 * row by row, column by column. Anything else (a missing column, an SQL expression) is built by
 * Kysely for each statement.
 */
function uniformColumns(rows: readonly object[]): string[] | undefined {
  const columns = Object.keys(rows[0]!);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as Record<string, unknown>;
    if (r > 0 && !sameColumns(Object.keys(row), columns)) return undefined;
    for (const column of columns) {
      const value = row[column];
      if (value === undefined || (typeof value === "object" && value !== null) || typeof value === "function")
        return undefined;
    }
  }
  return columns;
}

async function insertUncached<T extends keyof Schema & string>(
  db: Executor,
  table: T,
  rows: readonly InsertObject<Schema, T>[],
): Promise<void> {
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
