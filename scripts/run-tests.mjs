#!/usr/bin/env node
// Runs the test suite with Node's own test runner (through tsx for TypeScript).
//   node scripts/run-tests.mjs            unit + integration + e2e tests
//   node scripts/run-tests.mjs --unit     unit tests only (src/**/*.test.ts), no servers needed
//   node scripts/run-tests.mjs FILE...    the named test files
// Integration tests use the machine's PostgreSQL and Redis; with CI=true they fail, rather than
// skip, when those servers cannot be reached (see test/support/services.ts). Before integration
// tests run, migrated template databases are built once (test/support/template-db.ts); every test
// database of the run is a clone of them, and they are dropped at the end. TEST_TEMPLATES=0 turns
// that off (each test database migrates itself). TEST_CONCURRENCY (default 2): test files at once.
// A failed test's database is kept and its URL printed (docs/testing.md).
import { spawn, spawnSync } from "node:child_process";
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
const tsx = [process.execPath, "--import", "tsx", "--disable-warning=ExperimentalWarning"];
const templateTool = join("test", "support", "template-db.ts");

/** Builds the run's template databases; {} when no integration test runs or building fails. */
function buildTemplates() {
  if (process.env.TEST_TEMPLATES === "0" || !files.some((f) => !f.startsWith("src"))) return null;
  const started = Date.now();
  const built = spawnSync(tsx[0], [...tsx.slice(1), templateTool, "create"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NODE_ENV: "test" },
  });
  if (built.status !== 0) {
    console.error("template databases could not be built: each test database migrates itself");
    return null;
  }
  const templates = JSON.parse(built.stdout.trim().split("\n").pop());
  console.log(
    `template databases built in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
      `${templates.postgres ?? "no PostgreSQL"}, ${templates.sqlite}`,
  );
  return templates;
}

const templates = buildTemplates();
const env = { ...process.env, NODE_ENV: "test" };
if (templates) {
  if (templates.postgres) env.TEST_PG_TEMPLATE = templates.postgres;
  env.TEST_SQLITE_TEMPLATE = templates.sqlite;
}

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
  { stdio: "inherit", env },
);
const forward = (signal) => child.kill(signal);
process.on("SIGINT", forward);
process.on("SIGTERM", forward);
child.on("exit", (code, signal) => {
  if (templates) {
    spawnSync(tsx[0], [...tsx.slice(1), templateTool, "drop", JSON.stringify(templates)], {
      stdio: "inherit",
      env: { ...process.env, NODE_ENV: "test" },
    });
  }
  process.exit(code ?? (signal ? 1 : 0));
});
