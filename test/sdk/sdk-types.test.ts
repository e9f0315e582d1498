// The SDK's committed OpenAPI document and types are what the routes generate today: a route
// change without `npm run sdk:types` fails here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { generateFiles, ROOT } from "../../sdk/tools/generate-types.js";

describe("SDK types", () => {
  it("the committed openapi.json and openapi-types.ts match what the routes generate now", async () => {
    const files = await generateFiles();
    assert.ok(Object.keys(files).length >= 2);
    for (const [path, fresh] of Object.entries(files)) {
      const committed = readFileSync(join(ROOT, path), "utf8");
      assert.ok(committed === fresh, `${path} is stale: run \`npm run sdk:types\` and commit the result`);
    }
  });
});
