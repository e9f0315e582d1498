// Build-time tool (never shipped with the client): builds the real app in-process on a throwaway
// SQLite database, takes its OpenAPI document and renders the SDK's types from it. The script
// (scripts/generate-sdk-types.mjs) writes the results; the staleness test compares against them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import { loadConfig } from "../../src/config/config.js";
import { buildHttpApp, createServices } from "../../src/main.js";
import { renderApiDoc } from "./render-api-doc.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const DOCUMENT_PATH = "sdk/openapi.json";
export const TYPES_PATH = "sdk/src/openapi-types.ts";
export const API_DOC_PATH = "docs/api.md";

export interface GeneratedFiles {
  /** Repository-relative path -> formatted file text. */
  [path: string]: string;
}

/** The document the API serves at GET /openapi.json, built without listening anywhere. */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "leadcheck-sdk-types-"));
  // A fixed environment: the document must not depend on the machine that generates it.
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    DATABASE_URL: `sqlite:${join(dir, "openapi.db")}`,
    SMTP_HELO_NAME: "sdk-types.leadcheck.invalid",
  });
  const services = await createServices(config, { migrate: false });
  try {
    const app = await buildHttpApp(services);
    try {
      await app.ready();
      return JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** TypeScript types for the document, formatted the way the repository's formatter wants them. */
export async function renderTypes(document: Record<string, unknown>): Promise<string> {
  const nodes = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0], {
    // Request fields with a server-side default stay optional for callers.
    defaultNonNullable: false,
    silent: true,
  });
  const header = COMMENT_HEADER.replace(
    "Do not make direct changes to the file.",
    "Regenerate with `npm run sdk:types`; do not edit by hand.",
  );
  return format(TYPES_PATH, header + astToString(nodes));
}

export async function generateFiles(): Promise<GeneratedFiles> {
  const document = await buildOpenApiDocument();
  return {
    [DOCUMENT_PATH]: format(DOCUMENT_PATH, `${JSON.stringify(document, null, 2)}\n`),
    [TYPES_PATH]: await renderTypes(document),
    [API_DOC_PATH]: renderApiDoc(document),
  };
}

/** Runs Biome's formatter over text in memory, as if it were the file at `path`. */
function format(path: string, text: string): string {
  const biome = join(ROOT, "node_modules", ".bin", "biome");
  const run = spawnSync(biome, ["format", `--stdin-file-path=${path}`], {
    cwd: ROOT,
    input: text,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`biome format failed for ${path}: ${run.stderr}`);
  return run.stdout;
}
