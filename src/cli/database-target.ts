// Which database an admin command is about to use, said before it is used: run from the wrong
// folder, the default `sqlite:./data/leadcheck.db` names a new file there, and a key created in it
// is one the running server never sees. So admin commands print the database and refuse a new,
// empty one unless `--create` asks for it.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import pg from "pg";
import { openSqlite } from "../storage/sqlite-driver.js";

type DatabaseState = "missing" | "empty" | "ready";

export interface DatabaseTarget {
  /** The URL with any password hidden, SQLite paths made absolute. */
  shown: string;
  state: DatabaseState;
}

const MIGRATIONS_TABLE = "kysely_migration";

export async function inspectDatabase(url: string): Promise<DatabaseTarget> {
  if (url.startsWith("sqlite:")) {
    const raw = url.slice("sqlite:".length);
    if (raw === ":memory:") return { shown: url, state: "empty" };
    const path = resolve(raw);
    const shown = `sqlite:${path}`;
    if (!existsSync(path)) return { shown, state: "missing" };
    const sqlite = openSqlite(path, { readonly: true, fileMustExist: true });
    try {
      const row = sqlite
        .prepare("select count(*) as n from sqlite_master where type = 'table' and name = ?")
        .get(MIGRATIONS_TABLE) as { n: number };
      return { shown, state: row.n > 0 ? "ready" : "empty" };
    } finally {
      sqlite.close();
    }
  }
  const shown = hidePassword(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ t: string | null }>("select to_regclass($1)::text as t", [
      MIGRATIONS_TABLE,
    ]);
    return { shown, state: rows[0]?.t ? "ready" : "empty" };
  } finally {
    await client.end();
  }
}

function hidePassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url;
  }
}

/** Why the command stops, or undefined to go on. `migrate` may fill an empty database (its job). */
export function refusal(
  target: DatabaseTarget,
  command: "admin" | "migrate",
  create: boolean,
): string | undefined {
  if (create) return undefined;
  if (target.state === "missing") {
    return `no database at ${target.shown}. Run the command where the server runs (its folder, its DATABASE_URL), or pass --create to start a new, empty database there.`;
  }
  if (target.state === "empty" && command === "admin") {
    return `${target.shown} has no leadcheck tables: it is not the server's database. Set DATABASE_URL to the server's, or pass --create to set up this one.`;
  }
  return undefined;
}
