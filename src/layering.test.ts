// Proves the layering rule of ADR 0017 fires, rather than assuming it: the project's own biome.json
// lints a scratch tree (in the OS temp dir, never in src/) holding imports that must be refused and
// imports that must pass, and each file gets exactly the verdict the rule promises.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BIOME = join(ROOT, "node_modules", ".bin", "biome");
const RULE = "lint/style/noRestrictedImports";

/** Scratch files: path -> [content, whether the rule must refuse it]. */
const CASES: Record<string, [string, boolean]> = {
  "src/leads/static-import.ts": [
    'import { AppError } from "../http/errors.js";\n\nexport const x = AppError;\n',
    true,
  ],
  "src/batches/type-import.ts": [
    'import type { App } from "../http/app-types.js";\n\nexport type X = App;\n',
    true,
  ],
  "src/webhooks/re-export.ts": ['export { AppError } from "../http/errors.js";\n', true],
  "src/jobs/dynamic-import.ts": ['export const load = () => import("../http/app.js");\n', true],
  "src/lib/folder-import.ts": ['export * from "../http";\n', true],
  "src/http/routes/route.ts": [
    'import { AppError } from "../errors.js";\n\nexport const x = AppError;\n',
    false,
  ],
  "src/cli/command.ts": [
    'import { AppError } from "../http/errors.js";\n\nexport const x = AppError;\n',
    false,
  ],
  "src/main.ts": ['import { buildApp } from "./http/app.js";\n\nexport const x = buildApp;\n', false],
  "src/leads/neutral.ts": [
    'import { createServer } from "node:http";\nimport { HttpClient } from "../net/http-client.js";\nimport { Timestamp } from "../lib/schema.js";\n\nexport const x = [createServer, HttpClient, Timestamp];\n',
    false,
  ],
};

interface Diagnostic {
  category: string;
  location: { path: string | { file: string } };
}

describe("layering rule (ADR 0017)", () => {
  const scratch = mkdtempSync(join(tmpdir(), "leadcheck-layering-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("refuses imports of src/http from domain modules, static, type, re-export, dynamic or folder, and nothing else", async () => {
    const config = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8")) as Record<string, unknown>;
    delete config.$schema; // points into node_modules, which the scratch tree has none of
    writeFileSync(join(scratch, "biome.json"), JSON.stringify(config));
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
    const refused = new Set(report.diagnostics.filter((d) => d.category === RULE).map(pathOf));
    const others = report.diagnostics.filter((d) => d.category !== RULE);
    assert.deepEqual(others, [], "the scratch files break no other rule");
    for (const [path, [, mustRefuse]] of Object.entries(CASES)) {
      assert.equal(refused.has(path), mustRefuse, `${path} ${mustRefuse ? "must be refused" : "must pass"}`);
    }
  });
});
