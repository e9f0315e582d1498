// The CLI as a user runs it: real processes, real databases.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, describe, it } from "node:test";
import pg from "pg";
import { createEmptyDatabase } from "../support/db.js";
import { TEST_ADMIN_TOKEN } from "../support/harness.js";
import { freePort, runCli, startProcess, waitHealthy } from "../support/process.js";
import { postgresSkipReason } from "../support/services.js";

describe("leadcheck CLI", async () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  it("prints help for every command", async () => {
    for (const args of [
      ["--help"],
      ["serve", "--help"],
      ["worker", "--help"],
      ["migrate", "--help"],
      ["keys", "create", "--help"],
      ["credits", "grant", "--help"],
    ]) {
      const { code, output } = await runCli(args, {});
      assert.equal(code, 0, args.join(" "));
      assert.match(output, /Usage: leadcheck/);
    }
  });

  it("creates a key and grants credits on SQLite, and serve accepts the key and exits 0 on SIGTERM", async () => {
    const db = await createEmptyDatabase("sqlite");
    cleanups.push(db.drop);
    const env = { DATABASE_URL: db.url, ADMIN_TOKEN: TEST_ADMIN_TOKEN };
    const refused = await runCli(["migrate"], env);
    assert.equal(refused.code, 2, refused.output);
    assert.match(refused.output, /no database at sqlite:.*--create/);
    const migrated = await runCli(["migrate", "--create"], env);
    assert.equal(migrated.code, 0, migrated.output);
    assert.match(migrated.output, /0001-foundation/);
    assert.match(
      migrated.output,
      new RegExp(`leadcheck: database ${db.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(DATABASE_URL\\)`),
    );

    const created = startProcess(["keys", "create", "--user", "cli_user", "--name", "from cli"], env);
    let createdJson = "";
    created.child.stdout?.on("data", (d) => {
      createdJson += d;
    });
    assert.equal(await created.exitCode(), 0, created.output());
    const key = JSON.parse(createdJson).api_key as string;
    assert.match(key, /^sk_[A-Za-z0-9]{40}$/);

    const granted = await runCli(["credits", "grant", "--user", "cli_user", "--credits", "0.5"], env);
    assert.equal(granted.code, 0, granted.output);
    assert.match(granted.output, /"credits": 2\.5,/);

    const bad = await runCli(["credits", "grant", "--user", "cli_user", "--credits", "abc"], env);
    assert.equal(bad.code, 2);

    const port = await freePort();
    const serve = startProcess(["serve"], { ...env, PORT: String(port) });
    cleanups.push(async () => serve.child.kill("SIGKILL"));
    await waitHealthy(port, serve);
    const res = await fetch(`http://127.0.0.1:${port}/v1/credits`, { headers: { "x-api-key": key } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { credits: number }).credits, 2.5);
    serve.child.kill("SIGTERM");
    assert.equal(await serve.exitCode(), 0, serve.output());
  });

  it("admin commands run from another folder refuse to create a database there unless --create", async () => {
    const db = await createEmptyDatabase("sqlite");
    cleanups.push(db.drop);
    const elsewhere = { DATABASE_URL: db.url };
    const refusedKey = await runCli(["keys", "create", "--user", "u", "--name", "n"], elsewhere);
    assert.equal(refusedKey.code, 2, refusedKey.output);
    assert.match(refusedKey.output, /leadcheck: database sqlite:.*\(DATABASE_URL\)/);
    assert.match(refusedKey.output, /no database at .*--create/);
    assert.doesNotMatch(refusedKey.output, /sk_/);
    const refusedGrant = await runCli(["credits", "grant", "--user", "u", "--credits", "1"], elsewhere);
    assert.equal(refusedGrant.code, 2, refusedGrant.output);
    assert.equal(existsSync(db.url.slice("sqlite:".length)), false, "no file was created");

    const created = await runCli(["keys", "create", "--user", "u", "--name", "n", "--create"], elsewhere);
    assert.equal(created.code, 0, created.output);
    assert.match(created.output, /"api_key": "sk_/);
    const again = await runCli(["credits", "grant", "--user", "u", "--credits", "1"], elsewhere);
    assert.equal(again.code, 0, again.output);
  });

  it("admin commands refuse a PostgreSQL database without leadcheck tables unless --create", async (t) => {
    const skip = await postgresSkipReason();
    if (skip) return t.skip(skip);
    const db = await createEmptyDatabase("postgres");
    cleanups.push(db.drop);
    const refused = await runCli(["keys", "create", "--user", "u", "--name", "n"], { DATABASE_URL: db.url });
    assert.equal(refused.code, 2, refused.output);
    assert.match(refused.output, /has no leadcheck tables/);
    const created = await runCli(["keys", "create", "--user", "u", "--name", "n", "--create"], {
      DATABASE_URL: db.url,
    });
    assert.equal(created.code, 0, created.output);
  });

  it("migrates once when two serve processes start together on one PostgreSQL", async (t) => {
    const skip = await postgresSkipReason();
    if (skip) return t.skip(skip);
    const db = await createEmptyDatabase("postgres");
    cleanups.push(db.drop);
    const [p1, p2] = [await freePort(), await freePort()];
    const a = startProcess(["serve"], { DATABASE_URL: db.url, PORT: String(p1) });
    const b = startProcess(["serve"], { DATABASE_URL: db.url, PORT: String(p2) });
    cleanups.push(
      async () => a.child.kill("SIGKILL"),
      async () => b.child.kill("SIGKILL"),
    );
    await Promise.all([waitHealthy(p1, a), waitHealthy(p2, b)]);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query(
      "select name, count(*)::int as n from kysely_migration group by name",
    );
    await client.end();
    assert.ok(rows.length >= 1);
    for (const row of rows) assert.equal(row.n, 1, `${row.name} applied once`);
    a.child.kill("SIGTERM");
    b.child.kill("SIGTERM");
    assert.equal(await a.exitCode(), 0, a.output());
    assert.equal(await b.exitCode(), 0, b.output());
  });
});
