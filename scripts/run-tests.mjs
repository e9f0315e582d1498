#!/usr/bin/env node
// Runs the test suite with Node's own test runner (through tsx for TypeScript).
//   node scripts/run-tests.mjs            unit + integration + e2e tests
//   node scripts/run-tests.mjs --unit     unit tests only (src/**/*.test.ts), no servers needed
//   node scripts/run-tests.mjs FILE...    the named test files
// Integration tests use the machine's PostgreSQL and Redis; with CI=true they fail, rather than
// skip, when those servers cannot be reached (see test/support/services.ts).
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const unitOnly = args.includes("--unit");
const explicit = args.filter((a) => !a.startsWith("--"));

function collect(dir) {
  let out = [];
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === "node_modules") continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(collect(p));
    else if (name.endsWith(".test.ts")) out.push(p);
  }
  return out.sort();
}

const files =
  explicit.length > 0 ? explicit : unitOnly ? collect("src") : [...collect("src"), ...collect("test")];
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}

const concurrency = process.env.TEST_CONCURRENCY ?? "2";
const child = spawn(
  process.execPath,
  [
    "--import",
    "tsx",
    // node:test's MockTimers (the deadline tests' mocked clock) is experimental on Node 20 and
    // says so once per test file (only that kind of warning is silenced, and only in tests).
    "--disable-warning=ExperimentalWarning",
    "--test",
    `--test-concurrency=${concurrency}`,
    "--test-timeout=600000",
    "--test-reporter=spec",
    ...files,
  ],
  { stdio: "inherit", env: { ...process.env, NODE_ENV: "test" } },
);
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
