// Template databases, built once per test run by scripts/run-tests.mjs and cloned by every test
// (test/support/db.ts): migrating a PostgreSQL database and making pg-boss's schema and queues
// costs seconds per database, `CREATE DATABASE x TEMPLATE tpl` a fraction of one.
//   node --import tsx test/support/template-db.ts create     prints {"postgres": name|null, "sqlite": file}
//   node --import tsx test/support/template-db.ts drop JSON  drops what `create` printed
// The PostgreSQL template takes no connections once built (ALLOW_CONNECTIONS false), so a clone
// never finds it busy. A run without PostgreSQL builds only the SQLite template.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../../src/config/config.js";
import { createServices, startQueue } from "../../src/main.js";
import { migrateToLatest, openDatabase } from "../../src/storage/db.js";
import { pgUrlOf, withAdmin } from "./db.js";
import { postgresSkipReason } from "./services.js";

export interface Templates {
  /** Name of the PostgreSQL template database; null when PostgreSQL is not reachable. */
  postgres: string | null;
  /** A migrated SQLite file that tests copy. */
  sqlite: string;
}

async function buildPostgresTemplate(): Promise<string | null> {
  try {
    if (await postgresSkipReason()) return null;
  } catch {
    return null; // CI=true and no PostgreSQL: the tests that need it fail and say so themselves
  }
  const name = `lc_tpl_${Date.now().toString(36)}_${process.pid}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name}`));
  const url = pgUrlOf(name);
  const database = openDatabase(url, { maxConnections: 4 });
  await migrateToLatest(database.db);
  await database.close();
  // pg-boss's schema and every queue of the job catalog, as startQueue makes them in a service.
  const services = await createServices(
    loadConfig({ NODE_ENV: "test", DATABASE_URL: url, LOG_LEVEL: "silent", NETWORK_CHECK: "false" }),
    { migrate: false },
  );
  await startQueue(services);
  await services.close();
  await withAdmin(async (admin) => {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
  });
  return name;
}

async function buildSqliteTemplate(): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), "leadcheck-template-")), "template.db");
  const database = openDatabase(`sqlite:${file}`, { maxConnections: 1 });
  await migrateToLatest(database.db);
  await database.close();
  return file;
}

export async function buildTemplates(): Promise<Templates> {
  const [postgres, sqlite] = await Promise.all([buildPostgresTemplate(), buildSqliteTemplate()]);
  return { postgres, sqlite };
}

export async function dropTemplates(templates: Templates): Promise<void> {
  rmSync(dirname(templates.sqlite), { recursive: true, force: true });
  const name = templates.postgres;
  if (name === null) return;
  await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, arg] = process.argv.slice(2);
  if (command === "create") {
    process.stdout.write(`${JSON.stringify(await buildTemplates())}\n`);
  } else if (command === "drop" && arg) {
    await dropTemplates(JSON.parse(arg) as Templates);
  } else {
    console.error("usage: template-db.ts create | drop JSON");
    process.exit(2);
  }
}
