// `leadcheck check` and `leadcheck import` as a user runs them: real subprocesses talking to the
// live service (the real app on a loopback port, checks answered by the local fake internet).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { LeadcheckClient } from "../../sdk/src/index.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { type Harness, startHarness } from "../support/harness.js";
import { startProcess } from "../support/process.js";
import { NO_LIMITS } from "./sdk-support.js";

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `leadcheck ...args` to completion with stdout and stderr kept apart. */
async function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const p = startProcess(args, { LEADCHECK_URL: "", LEADCHECK_API_KEY: "", ...env });
  let stdout = "";
  let stderr = "";
  p.child.stdout?.on("data", (d) => {
    stdout += d;
  });
  p.child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const code = await p.exitCode();
  return { code, stdout, stderr };
}

describe("leadcheck client commands", () => {
  let net: FakeInternet;
  let h: Harness;
  let dir = "";
  let env: Record<string, string> = {};
  let sdk: LeadcheckClient;

  before(async () => {
    net = await startFakeInternet();
    h = await startHarness("sqlite", { ...net.env, ...NO_LIMITS }, { websiteCa: net.ca, workers: true });
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    const url = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
    env = { LEADCHECK_URL: url, LEADCHECK_API_KEY: await h.apiKey("acct_cli") };
    sdk = new LeadcheckClient({ baseUrl: url, apiKey: env.LEADCHECK_API_KEY });
    dir = mkdtempSync(join(tmpdir(), "leadcheck-cli-"));
  });
  after(async () => {
    await h?.close();
    await net?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints help for check email, check website and import", async () => {
    const commands = [["check", "email"], ["check", "website"], ["import"]];
    const runs = await Promise.all(commands.map((args) => cli([...args, "--help"])));
    commands.forEach((args, i) => {
      const run = runs[i]!;
      assert.equal(run.code, 0, args.join(" "));
      assert.match(run.stdout, new RegExp(`Usage: leadcheck ${args.join(" ")}`));
      assert.match(run.stdout, /--url <url>.*LEADCHECK_URL/);
      assert.match(run.stdout, /--api-key <key>.*LEADCHECK_API_KEY/);
    });
  });

  it("prints a readable verdict line with the reason and key facts, without colour off a terminal", async () => {
    const [email, website] = await Promise.all([
      cli(["check", "email", "alice@acme.test", "--timeout", "10"], { ...env, NO_COLOR: "" }),
      cli(["check", "website", "acme.test"], { ...env, FORCE_COLOR: "1" }),
    ]);
    assert.equal(email.code, 0, email.stderr);
    assert.match(
      email.stdout,
      /^✔ VALID {2}alice@acme\.test {2}Mailbox accepts mail\n {2}mail server mx\.acme\.test · /,
    );
    assert.match(email.stdout, /catch-all no · disposable no/);
    assert.match(email.stdout, /1 credit used, [\d,]+ left\n$/);
    assert.ok(!email.stdout.includes("\u001b["), "no colour codes when stdout is not a terminal");
    assert.equal(website.code, 0, website.stderr);
    assert.ok(website.stdout.startsWith("\u001b[32m"), "FORCE_COLOR colours the verdict green");
    assert.match(website.stdout, /ACTIVE.*acme\.test.*answers HTTP 200/);
    assert.match(website.stdout, /TLS valid · parked no/);
  });

  it("checks an email with the address and key from the environment (--json)", async () => {
    const run = await cli(["check", "email", "alice@acme.test", "--timeout", "10", "--json"], env);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.status, "valid");
    assert.equal(result.valid, true);
  });

  it("checks a website with --url and --api-key flags (--json)", async () => {
    const run = await cli([
      "check",
      "website",
      "acme.test",
      "--json",
      "--url",
      env.LEADCHECK_URL!,
      "--api-key",
      env.LEADCHECK_API_KEY!,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.status, "active");
    assert.equal(result.sslValid, true);
  });

  it("imports a CSV and follows the validation batch to completion with a progress bar", async () => {
    const file = join(dir, "leads.csv");
    writeFileSync(file, "email,website,first_name\nbob@acme.test,acme.test,Bob\nanyone@catchall.test,,Ann\n");
    const run = await cli(["import", file, "--poll-ms", "100"], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /Imported 2 leads; validating in batch_/);
    assert.match(run.stderr, /\[#+\] 100% 2\/2 \(valid \d, invalid \d, failed \d\)/);
    const out = JSON.parse(run.stdout);
    assert.equal(out.created, 2);
    assert.equal(out.status, "completed");
    assert.equal(out.batch.completedLeads + out.batch.failedLeads, 2);
    const bob = await sdk.leads.get(out.leadIds[0]);
    assert.equal(bob.source, "csv");
    assert.notEqual(bob.validationStatus, "processing");
  });

  it("imports without validation or charge with --no-validate", async () => {
    const file = join(dir, "plain.csv");
    writeFileSync(file, "email\ncarol@acme.test\n");
    const before = (await sdk.credits.get()).credits;
    const run = await cli(["import", file, "--no-validate"], env);
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.equal(out.created, 1);
    assert.equal(out.batchId, null);
    assert.equal((await sdk.credits.get()).credits, before);
    assert.equal((await sdk.leads.get(out.leadIds[0])).validationStatus, "new");
  });

  it("sends a Latin-1 file's bytes as they are, so its umlauts arrive", async () => {
    const file = join(dir, "latin1.csv");
    writeFileSync(file, Buffer.from("email;company\nmueller@acme.test;M\u00fcller GmbH\n", "latin1"));
    const run = await cli(["import", file, "--no-validate"], env);
    assert.equal(run.code, 0, run.stderr);
    const lead = await sdk.leads.get(JSON.parse(run.stdout).leadIds[0]);
    assert.equal(lead.company, "Müller GmbH");
  });

  it("reports a refused file by line and exits 1", async () => {
    const file = join(dir, "bad.csv");
    writeFileSync(file, "email\nok@acme.test\nnot-an-email\n");
    const run = await cli(["import", file], env);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /VALIDATION_ERROR, HTTP 422/);
    assert.match(run.stderr, /line 3: /);
    assert.equal(run.stdout, "");
  });

  it("exits 2 without an address or key and 1 with a rejected key", async () => {
    const [noUrl, noKey, badKey] = await Promise.all([
      cli(["check", "website", "acme.test"], { LEADCHECK_API_KEY: "sk_x" }),
      cli(["check", "website", "acme.test"], { LEADCHECK_URL: env.LEADCHECK_URL! }),
      cli(["check", "email", "alice@acme.test"], { ...env, LEADCHECK_API_KEY: `sk_${"x".repeat(40)}` }),
    ]);
    assert.equal(noUrl!.code, 2);
    assert.match(noUrl!.stderr, /--url or LEADCHECK_URL/);
    assert.equal(noKey!.code, 2);
    assert.match(noKey!.stderr, /--api-key or LEADCHECK_API_KEY/);
    assert.equal(badKey!.code, 1);
    assert.match(badKey!.stderr, /INVALID_API_KEY, HTTP 401/);
  });
});
