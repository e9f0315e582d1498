// Opens the configured database (embedded SQLite or PostgreSQL) behind one Kysely instance.
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Kysely, Migrator, PostgresDialect } from "kysely";
import pg from "pg";
import type { DatabaseKind } from "../config/config.js";
import { capsFor, type DialectCaps } from "./dialect.js";
import { migrations } from "./migrations/index.js";
import type { Schema } from "./schema.js";
import { FairSqliteDialect, withStatementCache } from "./sqlite-dialect.js";
import { openSqlite, type SQLite, sqliteDriver } from "./sqlite-driver.js";

// int8 (bigint) and numeric arrive as strings from pg; milli-credit amounts fit a double exactly.
pg.types.setTypeParser(20, (v) => Number(v));

export type Db = Kysely<Schema>;

export interface Database {
  db: Db;
  caps: DialectCaps;
  kind: DatabaseKind;
  /** The SQLite handle (statements cached) behind `db`, for prepared reads; undefined on PostgreSQL. */
  sqlite: SQLite.Database | undefined;
  /** The PostgreSQL pool (pg-boss shares it); undefined on SQLite. */
  pgPool: pg.Pool | undefined;
  /** The SQLite file path; undefined on PostgreSQL. */
  sqlitePath: string | undefined;
  /** The SQLite driver and its version (sqlite-driver.ts), e.g. "better-sqlite3@13.2.0"; undefined on PostgreSQL. */
  sqliteDriver: string | undefined;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Pool size on PostgreSQL. */
  maxConnections?: number;
  /** PostgreSQL: longest wait for a connection from the pool (a new one or a free one). */
  connectTimeoutMs?: number;
  /** PostgreSQL: the sessions' statement_timeout (0: none). */
  statementTimeoutMs?: number;
  /** Errors of idle pool connections (a server restart): logged by the caller. */
  onPoolError?: (error: Error) => void;
}

// A burst of requests queues for a pool slot under the same timeout as a server that is down: 20 s
// lets a 1,000-request burst on a 20-connection pool drain, and a real outage still ends in a 503.
const DATABASE_DEFAULTS = { connectTimeoutMs: 20_000, statementTimeoutMs: 30_000 } as const;

function sqlitePathOf(url: string): string {
  const path = url.slice("sqlite:".length);
  if (!path) throw new Error("DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/leadcheck.db");
  return path === ":memory:" ? path : resolve(path);
}

export function openDatabase(url: string, options: OpenOptions = {}): Database {
  if (url.startsWith("sqlite:")) {
    const path = sqlitePathOf(url);
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const sqlite = withStatementCache(openSqlite(path));
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = NORMAL");
    sqlite.pragma("busy_timeout = 10000");
    sqlite.pragma("foreign_keys = ON");
    // Freed pages are overwritten with zeros: erased and purged personal data leaves the file.
    sqlite.pragma("secure_delete = ON");
    const db = new Kysely<Schema>({ dialect: new FairSqliteDialect({ database: sqlite }) });
    return {
      db,
      caps: capsFor("sqlite"),
      kind: "sqlite",
      sqlite,
      pgPool: undefined,
      sqlitePath: path,
      sqliteDriver: sqliteDriver().name,
      close: () => db.destroy(),
    };
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 20,
    // A request waits this long for a connection, then fails (a 503), instead of hanging while
    // the server is down or every connection is busy.
    connectionTimeoutMillis: options.connectTimeoutMs ?? DATABASE_DEFAULTS.connectTimeoutMs,
    // No query runs away with a connection (and its locks) for longer than this.
    statement_timeout: options.statementTimeoutMs ?? DATABASE_DEFAULTS.statementTimeoutMs,
  });
  // A client that errors (server restart, terminated backend) must not crash the process. The
  // pool listens to a client only while it is idle, so a checked-out client's 'error' would have no
  // listener and be an uncaught exception. Each client gets its own listener for its whole life,
  // which reports every such error once; its query fails on its own and the pool drops it.
  const report = (error: Error) => {
    if (options.onPoolError) options.onPoolError(error);
    else console.error("PostgreSQL connection failed; the pool replaces it", error);
  };
  pool.on("connect", (client) => client.on("error", report));
  // The pool re-emits an idle client's error here; the client's listener above already reported it.
  pool.on("error", () => {});
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    caps: capsFor("postgres"),
    kind: "postgres",
    sqlite: undefined,
    pgPool: pool,
    sqlitePath: undefined,
    sqliteDriver: undefined,
    close: () => db.destroy(),
  };
}

/** Applies pending migrations. Safe when several processes start at once: Kysely takes a
 *  lock (an advisory lock on PostgreSQL, the write lock on SQLite) around the whole run. */
export async function migrateToLatest(db: Kysely<unknown> | Db): Promise<string[]> {
  const migrator = new Migrator({
    db: db as Kysely<unknown>,
    provider: { getMigrations: async () => migrations },
    // Modules take migration numbers from reserved ranges (0030s integrations, 0040s audit, ...):
    // a database that already ran 0061 must still apply a later-landed 0033.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
