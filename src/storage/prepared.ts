// Hot reads, compiled once. Kysely builds and compiles a query's SQL on every call; on an
// authenticated GET (two indexed lookups) that cost more than running the queries did
// (bench/api.ts). A prepared read is built once with named placeholders, and each call only binds
// values:
// - SQLite: its own statement runs at once, without the connection queue, unless a transaction
//   is open on the one connection; then it queues like any query, so it never sees another flow's
//   uncommitted rows. Rows come back as arrays (raw mode) and are turned into objects by a function
//   made for the statement's columns: for a 47-column lead that halves the time better-sqlite3
//   spends building the row (9.8 -> 4.9 µs).
// - PostgreSQL: a named statement, parsed and planned once per pooled connection.
import { createHash } from "node:crypto";
import { type Compilable, CompiledQuery, type Kysely } from "kysely";
import type { Database } from "./db.js";
import type { Schema } from "./schema.js";
import { uncachedHandle } from "./sqlite-dialect.js";
import type { SQLite } from "./sqlite-driver.js";

const MARK = "\u0000leadcheck-param:";

type Slot = { name: string } | { value: unknown };

export interface PreparedRead<P, R> {
  all(params: P): Promise<R[]>;
  first(params: P): Promise<R | undefined>;
}

/** What a prepared read runs on: a Database (db.ts). */
export type PreparedTarget = Pick<Database, "db" | "sqlite" | "pgPool">;

/**
 * `build` receives placeholders standing for the named parameters; it must use them only as
 * values (where clauses, limits), never to choose the query's shape, since it runs once.
 */
export function prepareRead<P extends Record<string, unknown>, R>(
  target: PreparedTarget,
  build: (db: Kysely<Schema>, params: P) => Compilable<R>,
): PreparedRead<P, R> {
  let compiled: { sql: string; pgSql: string; slots: Slot[]; name: string } | undefined;
  let sqliteRead: ((values: unknown[]) => R[]) | undefined;
  const sqlite = target.sqlite && uncachedHandle(target.sqlite);

  const compile = () => {
    const placeholders = new Proxy({} as P, { get: (_t, key) => `${MARK}${String(key)}` });
    const query = build(target.db, placeholders).compile();
    if (query.sql.includes(MARK)) throw new Error("prepareRead: a parameter was inlined into the SQL text");
    const slots = query.parameters.map(
      (value): Slot =>
        typeof value === "string" && value.startsWith(MARK) ? { name: value.slice(MARK.length) } : { value },
    );
    // node-postgres has the result's columns described on every execution and builds a parser per
    // column each time: for a 47-column lead that cost more than the row itself. As one json
    // column, the row is described in a few bytes and built by JSON.parse. The schema's portable
    // types (text, integers, bigint read as numbers) come out of JSON as they do from the driver.
    const pgSql = `select row_to_json(q) as r from (${query.sql}) as q`;
    const name = `lc_${createHash("sha256").update(pgSql).digest("hex").slice(0, 24)}`;
    return { sql: query.sql, pgSql, slots, name };
  };

  const all = async (params: P): Promise<R[]> => {
    compiled ??= compile();
    const values = compiled.slots.map((slot) => ("name" in slot ? params[slot.name] : slot.value));
    if (sqlite && !sqlite.inTransaction) {
      sqliteRead ??= rawReader<R>(sqlite.prepare(compiled.sql));
      return sqliteRead(values);
    }
    const { pgPool } = target;
    if (pgPool) {
      const { rows } = await pgPool.query({ name: compiled.name, text: compiled.pgSql, values });
      return rows.map((row: { r: R }) => row.r);
    }
    const result = await target.db.executeQuery<R>(CompiledQuery.raw(compiled.sql, values));
    return [...result.rows];
  };

  return {
    all,
    async first(params) {
      return (await all(params))[0];
    },
  };
}

/** Runs a statement in raw mode and builds each row with an object literal of its columns. */
function rawReader<R>(statement: SQLite.Statement): (values: unknown[]) => R[] {
  const raw = statement.raw(true);
  const columns = raw.columns().map((c) => c.name);
  // A literal with every column gives the row a fixed shape at once; assigning 47 properties one by
  // one costs a third more. Column names come from the schema and are quoted by JSON.stringify.
  const body = `return {${columns.map((name, i) => `${JSON.stringify(name)}: r[${i}]`).join(", ")}};`;
  const toRow = new Function("r", body) as (r: unknown[]) => R;
  return (values) => (raw.all(values) as unknown[][]).map(toRow);
}
