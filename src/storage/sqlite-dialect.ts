// Kysely's SQLite dialect, tuned for many concurrent requests on the one embedded connection.
// Two costs dominated an authenticated read under load (bench/api.ts): every query prepared its
// SQL afresh, and the driver's connection mutex woke every waiting query on each release, so 50
// requests in flight cost ~50 wake-ups per query. Here statements are reused and waiters queue.
import {
  type DatabaseConnection,
  type Driver,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from "kysely";
import type { SQLite } from "./sqlite-driver.js";

/** Most distinct SQL texts whose prepared statements are kept (the app has a few hundred). */
const STATEMENT_CACHE_SIZE = 500;

export class FairSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  /** `database` should come from withStatementCache(), so that statements are reused. */
  constructor(config: SqliteDialectConfig & { database: SQLite.Database }) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new FairSqliteDriver(this.#config);
  }
}

/** Hands the single connection to waiters in arrival order, waking only the next one. */
class FairSqliteDriver extends SqliteDriver {
  readonly #waiters: (() => void)[] = [];
  #isHeld = false;

  override async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#isHeld) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.#isHeld = true;
    // Uncontended now: the base driver's own mutex is taken and released inside our turn.
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    const next = this.#waiters.shift();
    if (next) next();
    else this.#isHeld = false;
  }
}

const uncached = new WeakMap<SQLite.Database, SQLite.Database>();

/** The handle under withStatementCache(): for statements that must not be shared (raw mode). */
export function uncachedHandle(sqlite: SQLite.Database): SQLite.Database {
  return uncached.get(sqlite) ?? sqlite;
}

/** Reuses prepared statements by SQL text; a statement still busy streaming rows is not shared. */
export function withStatementCache(sqlite: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepareFresh = sqlite.prepare.bind(sqlite);
  const prepare = (source: string) => {
    const cached = cache.get(source);
    if (cached && !cached.busy) return cached;
    const statement = prepareFresh(source);
    if (!cached) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(source, statement);
    }
    return statement;
  };
  const proxy = new Proxy(sqlite, {
    get: (target, property, receiver) =>
      property === "prepare" ? prepare : Reflect.get(target, property, receiver),
  });
  uncached.set(proxy, sqlite);
  return proxy;
}
