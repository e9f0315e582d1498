// The embedded database under many concurrent requests: the single SQLite connection is handed
// to waiting queries in turn (one wake-up each), transactions stay exclusive, and reused prepared
// statements never serve two queries at once.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { createTestDatabase, type TestDatabase } from "../support/db.js";

describe("embedded SQLite under concurrency", () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase("sqlite");
    await sql`create table counters (id integer primary key, n integer not null)`.execute(t.database.db);
    await sql`insert into counters (id, n) values (1, 0)`.execute(t.database.db);
  });
  after(async () => t?.destroy());

  it("keeps 50 concurrent read-modify-write transactions exclusive amid 500 plain queries", async () => {
    const { db } = t.database;
    const transactions = Array.from({ length: 50 }, () =>
      db.transaction().execute(async (trx) => {
        const row = await sql<{ n: number }>`select n from counters where id = 1`.execute(trx);
        await new Promise((r) => setImmediate(r));
        await sql`update counters set n = ${row.rows[0]!.n + 1} where id = 1`.execute(trx);
      }),
    );
    const reads = Array.from({ length: 500 }, () =>
      sql<{ n: number }>`select n from counters where id = 1`.execute(db),
    );
    await Promise.all([...transactions, ...reads]);
    const final = await sql<{ n: number }>`select n from counters where id = 1`.execute(db);
    assert.equal(final.rows[0]!.n, 50, "no increment lost");
  });

  it("answers the same statement for a streaming query and queries queued behind it", async () => {
    const { db } = t.database;
    const query = () => db.selectFrom("accounts").select("id").where("id", "like", "s%");
    await db
      .insertInto("accounts")
      .values(
        Array.from({ length: 20 }, (_, i) => ({
          id: `s${i}`,
          balance_milli: 0,
          created_at: "2026-01-01T00:00:00.000Z",
          updated_at: "2026-01-01T00:00:00.000Z",
        })),
      )
      .execute();
    const streamed: string[] = [];
    const queued: Promise<unknown>[] = [];
    for await (const row of query().stream()) {
      streamed.push(row.id);
      queued.push(query().execute());
    }
    const results = (await Promise.all(queued)) as { id: string }[][];
    assert.equal(streamed.length, 20);
    for (const rows of results) assert.equal(rows.length, 20);
  });
});
