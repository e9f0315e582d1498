// A fresh database per test file: a temporary SQLite file, or a new PostgreSQL database that is
// dropped afterwards. `dialects()` lists the dialects a suite runs under (both by default).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

export function dialects(): DatabaseKind[] {
  const only = process.env.TEST_DIALECT;
  if (only === "sqlite" || only === "postgres") return [only];
  return ["sqlite", "postgres"];
}

export async function skipReasonFor(kind: DatabaseKind): Promise<string | false> {
  return kind === "postgres" ? postgresSkipReason() : false;
}

/** Creates an empty database of the given kind and returns its URL (not migrated, not opened). */
export async function createEmptyDatabase(
  kind: DatabaseKind,
  adminUrl: string = PG_ADMIN_URL,
): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "leadcheck-test-"));
    return {
      url: `sqlite:${join(dir, "test.db")}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `lc_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  const empty = await createEmptyDatabase(kind);
  const database = openDatabase(empty.url, { maxConnections: 30 });
  await migrateToLatest(database.db);
  return {
    kind,
    url: empty.url,
    database,
    destroy: async () => {
      await database.close();
      await empty.drop();
    },
  };
}
