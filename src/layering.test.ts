// Proves the layering rules of ADR 0017 fire, rather than assuming it: the project's own biome.json
// (and its GritQL plugins: SQL only in repositories, repositories built only in factories) lints a scratch tree (in the OS temp dir, never in src/) holding imports
// and queries that must be refused and others that must pass, and each file gets exactly the
// verdict the rules promise.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BIOME = join(ROOT, "node_modules", ".bin", "biome");
/** The diagnostic category of each rule: Biome's import rule, and our GritQL plugins for SQL and
 *  for repositories built outside a module's factory. */
const RULES = { imports: "lint/style/noRestrictedImports", sql: "plugin", repos: "plugin" } as const;
type Rule = keyof typeof RULES;

const QUERY = 'import type { Kysely } from "kysely";\n\ntype Db = Kysely<{ t: { id: string } }>;\n\n';

/** Scratch files: path -> [content, the rule that must refuse it (null: it must pass)]. */
const REPO = "class UsageRepo {}\n\nexport const r = new UsageRepo();\n";

const CASES: Record<string, [string, Rule | null]> = {
  // Repositories are built in the module factories and injected, never in services.
  "src/usage/usage.service.ts": [REPO, "repos"],
  "src/leads/validation/lead-validation.service.ts": [REPO, "repos"],
  "src/usage/create-usage.ts": [REPO, null],
  "src/usage/builds-a-map.ts": ["export const m = new Map<string, number>();\n", null],
  "src/leads/static-import.ts": [
    'import { AppError } from "../http/errors.js";\n\nexport const x = AppError;\n',
    "imports",
  ],
  "src/batches/type-import.ts": [
    'import type { App } from "../http/app-types.js";\n\nexport type X = App;\n',
    "imports",
  ],
  "src/webhooks/re-export.ts": ['export { AppError } from "../http/errors.js";\n', "imports"],
  "src/jobs/dynamic-import.ts": ['export const load = () => import("../http/app.js");\n', "imports"],
  "src/lib/folder-import.ts": ['export * from "../http";\n', "imports"],
  "src/http/routes/route.ts": [
    'import { AppError } from "../errors.js";\n\nexport const x = AppError;\n',
    null,
  ],
  "src/cli/command.ts": [
    'import { AppError } from "../http/errors.js";\n\nexport const x = AppError;\n',
    null,
  ],
  "src/main.ts": ['import { buildApp } from "./http/app.js";\n\nexport const x = buildApp;\n', null],
  "src/leads/neutral.ts": [
    'import { createServer } from "node:http";\nimport { HttpClient } from "../net/http-client.js";\nimport { Timestamp } from "../lib/schema.js";\n\nexport const x = [createServer, HttpClient, Timestamp];\n',
    null,
  ],
  // SQL outside repositories: each query form on its own, in a service, a bus, a route.
  "src/leads/select.ts": [`${QUERY}export const q = (db: Db) => db.selectFrom("t").select("id");\n`, "sql"],
  "src/events/insert.ts": [
    `${QUERY}export const q = (db: Db) => db.insertInto("t").values({ id: "x" });\n`,
    "sql",
  ],
  "src/webhooks/update.ts": [
    `${QUERY}export const q = (db: Db) => db.updateTable("t").set({ id: "x" });\n`,
    "sql",
  ],
  "src/batches/delete.ts": [`${QUERY}export const q = (db: Db) => db.deleteFrom("t");\n`, "sql"],
  "src/credits/template.ts": [
    'import { sql } from "kysely";\n\nexport const q = sql<number>`SELECT 1`;\n',
    "sql",
  ],
  "src/http/routes/fragment.ts": [
    'import { sql } from "kysely";\n\nexport const q = sql.ref("t.id");\n',
    "sql",
  ],
  "src/paid-checks/chunked.ts": [
    'import { insertInChunks } from "../storage/chunked-insert.js";\n\nexport const q = insertInChunks;\nexport const r = () => insertInChunks();\n',
    "sql",
  ],
  // Where SQL belongs, and look-alikes that are not SQL.
  "src/leads/leads.repo.ts": [
    `${QUERY}export const q = (db: Db) => db.selectFrom("t").select("id");\n`,
    null,
  ],
  "src/storage/ping.ts": ['import { sql } from "kysely";\n\nexport const q = sql`SELECT 1`;\n', null],
  "src/jobs/sqlite-job-store.ts": [`${QUERY}export const q = (db: Db) => db.deleteFrom("t");\n`, null],
  "src/leads/leads.service.test.ts": [`${QUERY}export const q = (db: Db) => db.selectFrom("t");\n`, null],
  "src/lib/collections.ts": [
    'export const q = (m: Map<string, number>, list: number[]) => [m.delete("a"), list.with(0, 1), tag`select`];\n\ndeclare function tag(s: TemplateStringsArray): string;\n',
    null,
  ],
};

interface Diagnostic {
  category: string;
  location: { path: string | { file: string } };
}

describe("layering rule (ADR 0017)", () => {
  const scratch = mkdtempSync(join(tmpdir(), "leadcheck-layering-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("refuses imports of src/http from domain modules (static, type, re-export, dynamic, folder), SQL outside repositories and repositories built outside factories, and nothing else", async () => {
    const config = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8")) as Record<string, unknown>;
    delete config.$schema; // points into node_modules, which the scratch tree has none of
    writeFileSync(join(scratch, "biome.json"), JSON.stringify(config));
    cpSync(join(ROOT, "lint"), join(scratch, "lint"), { recursive: true });
    for (const [path, [content]] of Object.entries(CASES)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), content);
    }
    // Biome exits 1 when it finds errors; the report is on stdout either way.
    const stdout = await promisify(execFile)(
      BIOME,
      ["lint", "--reporter=json", "--max-diagnostics=100", "."],
      {
        cwd: scratch,
      },
    ).then(
      (r) => r.stdout,
      (error: { stdout?: string }) => error.stdout ?? "",
    );
    const report = JSON.parse(stdout) as { diagnostics: Diagnostic[] };
    const pathOf = (d: Diagnostic) =>
      typeof d.location.path === "string" ? d.location.path : d.location.path.file;
    const categories = Object.values(RULES) as string[];
    const others = report.diagnostics.filter((d) => !categories.includes(d.category));
    assert.deepEqual(others, [], "the scratch files break no other rule");
    for (const [path, [, rule]] of Object.entries(CASES)) {
      const refusedBy = report.diagnostics.filter((d) => pathOf(d) === path).map((d) => d.category);
      assert.deepEqual(
        [...new Set(refusedBy)],
        rule ? [RULES[rule]] : [],
        `${path} ${rule ? `must be refused by ${RULES[rule]}` : "must pass"}`,
      );
    }
  });
});
