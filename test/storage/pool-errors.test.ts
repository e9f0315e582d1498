// A PostgreSQL connection that the server ends while it is checked out (a restart, an
// administrator's pg_terminate_backend) must fail its query and be reported, not crash the process.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { openDatabase } from "../../src/storage/db.js";
import { createEmptyDatabase } from "../support/db.js";
import { postgresSkipReason } from "../support/services.js";
import { waitFor } from "../support/wait-for.js";

describe("PostgreSQL pool errors", async () => {
  const skip = await postgresSkipReason();
  let empty: { url: string; drop(): Promise<void> };
  before(async () => {
    if (!skip) empty = await createEmptyDatabase("postgres");
  });
  after(async () => {
    if (!skip) await empty.drop();
  });

  it("reports a checked-out connection the server terminates, and keeps serving queries", {
    skip,
  }, async () => {
    const reported: Error[] = [];
    const database = openDatabase(empty.url, { maxConnections: 2, onPoolError: (e) => reported.push(e) });
    const pool = database.pgPool as pg.Pool;
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
      const killer = new pg.Client({ connectionString: empty.url });
      await killer.connect();
      await killer.query("select pg_terminate_backend($1)", [rows[0]!.pid]);
      await killer.end();
      // The terminated backend's error arrives on the checked-out client, with no query running.
      await waitFor(() => reported.length > 0, "the pool to report the terminated backend", 10_000);
      client.release(reported[0]);
      assert.match(String(reported[0]), /terminat|administrator|ECONNRESET|Connection terminated/i);
      const again = await pool.query<{ one: number }>("select 1 as one");
      assert.equal(again.rows[0]!.one, 1);
    } finally {
      await database.close();
    }
  });
});
