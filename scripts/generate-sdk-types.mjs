#!/usr/bin/env node
// Regenerates sdk/openapi.json and sdk/src/openapi-types.ts from the app's routes (no server, no
// network): `npm run sdk:types`. test/sdk/sdk-types.test.ts fails while the committed files are stale.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { register } from "tsx/esm/api";

register();
const { generateFiles, ROOT } = await import("../sdk/tools/generate-types.ts");
const files = await generateFiles();
for (const [path, text] of Object.entries(files)) {
  writeFileSync(join(ROOT, path), text);
  process.stdout.write(`wrote ${path} (${text.length} bytes)\n`);
}
