#!/usr/bin/env node
// Lints the OpenAPI document the API serves at GET /openapi.json with Stoplight Spectral
// (.spectral.yaml: spectral:oas), failing on any warning: `npm run lint:openapi`, run by
// `npm run check`. The document comes from the built app in-process (no server, no network).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

register();
const root = fileURLToPath(new URL("../", import.meta.url));
const { buildOpenApiDocument } = await import("../sdk/tools/generate-types.ts");
const dir = mkdtempSync(join(tmpdir(), "leadcheck-openapi-lint-"));
try {
  const file = join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(await buildOpenApiDocument(), null, 2));
  const run = spawnSync(
    join(root, "node_modules", ".bin", "spectral"),
    ["lint", file, "--ruleset", join(root, ".spectral.yaml"), "--fail-severity", "warn", "--format", "text"],
    { cwd: root, stdio: "inherit" },
  );
  if (run.error) throw run.error;
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
