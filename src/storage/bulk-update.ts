// Many rows updated by id at once, each row with its own values. A batch chunk of 500 leads
// wrote its items and leads with 1,000 statements built by Kysely one by one: on PostgreSQL
// 1,000 round trips, the largest part of a batch's time.
// - PostgreSQL: the rows travel as one JSON parameter that json_populate_recordset turns into a
//   table, typed by the table's own row type, joined by id: two statements per set of columns.
// - SQLite (in-process, no round trips): one UPDATE per row, its SQL built once per shape and
//   prepared once (the driver's statement cache). For 10,000 leads of 34 changed columns that
//   took 107 ms, a VALUES join 212 ms, and a json_each join 745 ms (json_extract parses a
//   row's JSON once per column).
import { CompiledQuery, type Kysely, PostgresAdapter, type RawBuilder, sql, type Transaction } from "kysely";
import type { Schema } from "./schema.js";

type Executor = Kysely<Schema> | Transaction<Schema>;

/** A column value as the portable schema stores it (decision 0002): text, numbers, or null. */
type ColumnValue = string | number | null;

export interface RowUpdate {
  id: string;
  changes: Readonly<Record<string, ColumnValue | undefined>>;
}

type Match = Readonly<Record<string, ColumnValue>>;
type Table = keyof Schema & string;

const COLUMN = /^[a-z_][a-z0-9_]*$/;

/**
 * Sets each row's `changes` on the row of `table` with its `id`, where the row also meets `match`
 * (column equals value; null: is null). Rows may name different columns. Returns the ids of the
 * rows updated. Values must suit their columns as they would as parameters (an integer column
 * takes an integer, not 1.5).
 *
 * On PostgreSQL the rows that meet `match` are first selected and locked by id, then updated by
 * id alone. With the conditions in the UPDATE itself, the planner, on the statistics of a table a
 * bulk import has just filled (it sees a few rows), read every lead of the account through an
 * (account_id, ...) index (22 ms for 250 of 10,000 leads, against 10 ms by key), or, with the
 * conditions wrapped, rescanned the JSON rows once per row (240 ms for 500 leads). The locks hold
 * to the end of the caller's transaction (or of one opened here), so nothing changes between
 * the two statements.
 */
export async function updateRowsById(
  db: Executor,
  table: Table,
  rows: readonly RowUpdate[],
  match: Match = {},
): Promise<Set<string>> {
  const isPostgres = isPostgresOf(db);
  const hasMatch = Object.keys(match).length > 0;
  if (isPostgres && hasMatch && !db.isTransaction && rows.length > 0)
    return db.transaction().execute((trx) => updateRowsById(trx, table, rows, match));
  const updated = new Set<string>();
  for (const group of groupByColumns(rows, match)) {
    if (!isPostgres) {
      for (const row of group) {
        const result = await db.executeQuery(compileSingleRowUpdate(table, row, match));
        if (Number(result.numAffectedRows ?? 0) > 0) updated.add(row.id);
      }
      continue;
    }
    let targets = group;
    if (hasMatch) {
      const ids = group.map((row) => row.id);
      const found = await db.executeQuery(compileLockMatching(db, table, ids, match));
      const matching = new Set(found.rows.map((row) => row.id));
      targets = group.filter((row) => matching.has(row.id));
      if (targets.length === 0) continue;
    }
    const result = await db.executeQuery(compileJsonUpdate(db, table, targets));
    for (const row of result.rows) updated.add(row.id);
  }
  return updated;
}

/** The rows with the same set of changed columns, undefined values left out (as in Kysely's
 *  set()). Checks every column name: they are written into the SQL. */
function groupByColumns(rows: readonly RowUpdate[], match: Match): RowUpdate[][] {
  for (const column of Object.keys(match)) assertColumn(column);
  const groups = new Map<string, RowUpdate[]>();
  for (const row of rows) {
    let changes = row.changes;
    let columns = Object.keys(changes);
    if (columns.some((column) => changes[column] === undefined)) {
      columns = columns.filter((column) => changes[column] !== undefined);
      changes = Object.fromEntries(columns.map((column) => [column, row.changes[column]]));
    }
    if (columns.length === 0) continue;
    const signature = columns.join(",");
    let group = groups.get(signature);
    if (!group) {
      for (const column of columns) assertColumn(column);
      group = [];
      groups.set(signature, group);
    }
    group.push(changes === row.changes ? row : { id: row.id, changes });
  }
  return [...groups.values()];
}

function assertColumn(column: string): void {
  if (!COLUMN.test(column)) throw new TypeError(`not a column name: ${JSON.stringify(column)}`);
}

const isPostgresOf = (db: Executor) => db.getExecutor().adapter instanceof PostgresAdapter;

/** SQL of the single-row updates made so far, by table, changed columns and match columns. */
const singleRowSql = new Map<string, string>();
const SINGLE_ROW_SQL_MAX = 256;

/** SQLite: `row`'s UPDATE, found by its key (SQLite always takes the key for `id = ?`). */
export function compileSingleRowUpdate(table: Table, row: RowUpdate, match: Match): CompiledQuery {
  const columns = Object.keys(row.changes);
  const matched = Object.entries(match);
  const key = `${table}:${columns.join(",")}:${matched.map(([c, v]) => (v === null ? `${c} null` : c)).join(",")}`;
  let text = singleRowSql.get(key);
  if (text === undefined) {
    for (const column of [...columns, ...Object.keys(match)]) assertColumn(column);
    const conditions = matched.map(
      ([column, value]) => ` and "${column}" ${value === null ? "is null" : "= ?"}`,
    );
    text = `update "${table}" set ${columns.map((column) => `"${column}" = ?`).join(", ")} where "id" = ?${conditions.join("")}`;
    if (singleRowSql.size >= SINGLE_ROW_SQL_MAX) singleRowSql.delete(singleRowSql.keys().next().value!);
    singleRowSql.set(key, text);
  }
  const parameters: unknown[] = columns.map((column) => row.changes[column]);
  parameters.push(row.id);
  for (const [, value] of matched) if (value !== null) parameters.push(value);
  return CompiledQuery.raw(text, parameters);
}

/** PostgreSQL: the ids among `ids` whose rows meet `match`, locked. Only the id list can lead the
 *  planner to an index (the primary key's, or one pass over a small table); each condition is
 *  wrapped so that no (account_id, ...) index is taken for it on stale statistics. */
export function compileLockMatching(
  db: Executor,
  table: Table,
  ids: readonly string[],
  match: Match,
): CompiledQuery<{ id: string }> {
  const conditions = Object.entries(match).map(([column, value]) =>
    value === null
      ? sql`and (${sql.ref(column)} is null) is true`
      : sql`and (${sql.ref(column)} = ${value}) is true`,
  );
  return sql<{ id: string }>`select ${sql.ref("id")} from ${sql.table(table)}
    where ${sql.ref("id")} = any(${[...ids]}) ${sql.join(conditions, sql` `)}
    for update`.compile(db);
}

/** PostgreSQL: one UPDATE of `rows` (all with the same columns), joined by id to the JSON of
 *  their changes, each value read as its column's type. */
export function compileJsonUpdate(
  db: Executor,
  table: Table,
  rows: readonly RowUpdate[],
): CompiledQuery<{ id: string }> {
  const columns = Object.keys(rows[0]!.changes);
  const json = JSON.stringify(rows.map((row) => ({ ...row.changes, id: row.id })));
  const fromJson = (column: string): RawBuilder<unknown> => sql.ref(`v.${column}`);
  return sql<{ id: string }>`update ${sql.table(table)} as u
    set ${sql.join(columns.map((column) => sql`${sql.ref(column)} = ${fromJson(column)}`))}
    from json_populate_recordset(null::${sql.table(table)}, ${json}::json) as v
    where ${sql.ref("u.id")} = ${fromJson("id")}
    returning ${sql.ref("u.id")}`.compile(db);
}
