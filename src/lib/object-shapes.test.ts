import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

/**
 * Runs `body` in a fresh Node with V8's natives (%HaveSameMap), after a full collection and after
 * the root's transitions are used up the way the app's loading uses them up (3,000 distinct first
 * keys), and returns its output.
 */
function inFreshNode(seeded: boolean, body: string): string {
  const seed = seeded
    ? `await import(${JSON.stringify(fileURLToPath(new URL("./object-shapes.mjs", import.meta.url)))});`
    : "";
  // A full collection first: transitions whose objects are gone are freed then, and the app's
  // loading fills the freed places (a seed that was not kept alive was lost this way).
  const script = `${seed}
    globalThis.gc();
    const keep = [];
    for (let i = 0; i < 3000; i++) { const o = {}; o["k" + i] = i; keep.push(o); }
    ${body}`;
  const run = spawnSync(
    process.execPath,
    ["--allow-natives-syntax", "--expose-gc", "--import", "tsx", "--input-type=module", "-e", script],
    { encoding: "utf8" },
  );
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim();
}

/** Two header objects built as Node builds req.headers, key by key from the raw headers. */
const SAME_HEADERS_SHAPE = `
  const headers = () => {
    const h = {};
    for (const [k, v] of [["host", "a"], ["origin", "b"], ["content-type", "c"], ["content-length", "1"]]) h[k] = v;
    return h;
  };
  console.log(%HaveSameMap(headers(), headers()));`;

describe("object-shapes", () => {
  it("keeps req.headers objects on one shared hidden class once the root's transitions are used up", () => {
    assert.equal(inFreshNode(true, SAME_HEADERS_SHAPE), "true");
  });

  it("is needed: without it each headers object gets a hidden class of its own", () => {
    assert.equal(inFreshNode(false, SAME_HEADERS_SHAPE), "false");
  });
});
