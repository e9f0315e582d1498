// The SQLite driver for the Node that runs us (ADR 0014). better-sqlite3 has no release that is
// safe on every Node we support:
// - 12 (built against Node's C++ internals at install) aborts the process on Node 24 when a
//   statement is finalized ("Assertion failed: (env) != nullptr"), at exit or while serving.
// - 13 (Node-API 10, prebuilt) crashes on load below Node-API 10: all of Node 20, and 22 < 22.14.
// package.json depends on 12 and, as the optional `better-sqlite3-napi`, on 13, which npm skips
// where its engines (Node >= 22) exclude the Node. This module picks one, once, at the first open.
import { createRequire } from "node:module";
import type SQLite from "better-sqlite3";

/** better-sqlite3's types (12 and 13 share them); the rest of the code imports them from here. */
export type { SQLite };

export type SqlitePackage = "better-sqlite3-napi" | "better-sqlite3";

export interface SqliteDriver {
  Database: typeof SQLite;
  /** Package and version, e.g. "better-sqlite3@13.2.0", for the start-up log. */
  name: string;
}

/** The first Node-API version that better-sqlite3 13 loads on. */
const NAPI_FOR_13 = 10;
/** The first Node major on which better-sqlite3 12 aborts. */
const NODE_BREAKING_12 = 24;

/** Which package to load, or why none can be; pure, for the table in the tests. */
export function chooseSqlitePackage(
  runtime: { nodeMajor: number; napiVersion: number },
  isNapiInstalled: boolean,
): { package: SqlitePackage } | { refusal: string } {
  if (runtime.napiVersion >= NAPI_FOR_13 && isNapiInstalled) return { package: "better-sqlite3-napi" };
  if (runtime.nodeMajor < NODE_BREAKING_12) return { package: "better-sqlite3" };
  return {
    refusal:
      `better-sqlite3 13 (package better-sqlite3-napi) is not installed, and 12 aborts on Node ${runtime.nodeMajor}. ` +
      "Run npm install with this Node (optional dependencies included).",
  };
}

const require = createRequire(import.meta.url);
let loaded: SqliteDriver | undefined;

export function sqliteDriver(): SqliteDriver {
  loaded ??= loadSqliteDriver();
  return loaded;
}

/** Opens a SQLite database with the driver for this Node. */
export function openSqlite(path: string, options?: SQLite.Options): SQLite.Database {
  return new (sqliteDriver().Database)(path, options);
}

function loadSqliteDriver(): SqliteDriver {
  const choice = chooseSqlitePackage(
    { nodeMajor: Number(process.versions.node.split(".")[0]), napiVersion: Number(process.versions.napi) },
    isInstalled("better-sqlite3-napi"),
  );
  if ("refusal" in choice) throw new Error(choice.refusal);
  const { version } = require(`${choice.package}/package.json`) as { version: string };
  // 12's addon built for another Node fails at the first open, with npm rebuild as its advice.
  return { Database: require(choice.package) as typeof SQLite, name: `better-sqlite3@${version}` };
}

function isInstalled(name: string): boolean {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}
