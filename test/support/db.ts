// A fresh database per test file: a temporary SQLite file, or a new PostgreSQL database that is
// dropped afterwards. `dialects()` lists the dialects a suite runs under (both by default).
// Under scripts/run-tests.mjs a migrated database is a clone of the run's template database
// (test/support/template-db.ts: `CREATE DATABASE x TEMPLATE tpl`, a file copy on SQLite); run
// alone, a test file migrates its own. A database that was in use while a test failed is kept,
// and its URL printed, so the failure can be looked at; the others are dropped.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "node:test";
import pg from "pg";
import type { DatabaseKind } from "../../src/config/config.js";
import { type Database, migrateToLatest, openDatabase } from "../../src/storage/db.js";
import { PG_ADMIN_URL, postgresSkipReason } from "./services.js";

export interface TestDatabase {
  kind: DatabaseKind;
  url: string;
  database: Database;
  destroy(): Promise<void>;
}

/** The environment variables scripts/run-tests.mjs passes the run's templates in. */
const TEMPLATE_ENV = { postgres: "TEST_PG_TEMPLATE", sqlite: "TEST_SQLITE_TEMPLATE" } as const;

export function dialects(): DatabaseKind[] {
  const only = process.env.TEST_DIALECT;
  if (only === "sqlite" || only === "postgres") return [only];
  return ["sqlite", "postgres"];
}

export async function skipReasonFor(kind: DatabaseKind): Promise<string | false> {
  return kind === "postgres" ? postgresSkipReason() : false;
}

export function pgUrlOf(database: string, adminUrl: string = PG_ADMIN_URL): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withAdmin<T>(
  run: (admin: pg.Client) => Promise<T>,
  adminUrl: string = PG_ADMIN_URL,
): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.end();
  }
}

// Tests of this process that failed so far. Counted only under a test runner: benchmarks and the
// chaos run import this file too, and a hook would make them a test run.
let failedTests = 0;
if (process.env.NODE_TEST_CONTEXT !== undefined || process.argv[1]?.endsWith(".test.ts")) {
  afterEach((t) => {
    if ("passed" in t && !t.passed) failedTests++;
  });
}

const uniqueName = () => `lc_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

/** Creates an empty database of the given kind and returns its URL (not migrated, not opened). */
export async function createEmptyDatabase(
  kind: DatabaseKind,
  adminUrl: string = PG_ADMIN_URL,
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "leadcheck-test-"));
    const file = join(dir, "test.db");
    if (template) copyFileSync(template, file);
    return {
      url: `sqlite:${file}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = uniqueName();
  await withAdmin(
    (admin) => admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`),
    adminUrl,
  );
  return {
    url: pgUrlOf(name, adminUrl),
    drop: async () => {
      await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`), adminUrl);
    },
  };
}

/** A migrated database: a clone of the run's template when there is one. */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  const template = process.env[TEMPLATE_ENV[kind]] || undefined;
  const empty = await createEmptyDatabase(kind, PG_ADMIN_URL, template);
  const database = openDatabase(empty.url, { maxConnections: 30 });
  if (!template) await migrateToLatest(database.db);
  const failedBefore = failedTests;
  return {
    kind,
    url: empty.url,
    database,
    destroy: async () => {
      await database.close();
      if (failedTests > failedBefore) {
        console.error(`# kept the ${kind} database of a failed test: ${empty.url}`);
        return;
      }
      await empty.drop();
    },
  };
}
