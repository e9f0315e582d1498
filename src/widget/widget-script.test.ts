import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Script } from "node:vm";
import { gzipSync } from "node:zlib";

const source = readFileSync(new URL("./widget.js", import.meta.url));

test("widget.js stays within 8 KB gzipped, the budget a signup page can afford", () => {
  const gzipped = gzipSync(source, { level: 9 }).length;
  assert.ok(gzipped <= 8 * 1024, `widget.js is ${gzipped} bytes gzipped`);
});

test("widget.js is one plain script with no imports, so a <script async> tag can load it", () => {
  new Script(source.toString("utf8"), { filename: "widget.js" });
  assert.doesNotMatch(source.toString("utf8"), /^\s*(import|export)\s/m);
});

test("widget.js carries its messages in English, German, French, Spanish and Polish", () => {
  const text = source.toString("utf8");
  for (const lang of ["en", "de", "fr", "es", "pl"]) assert.match(text, new RegExp(`\\n\\s+${lang}: \\{`));
});
