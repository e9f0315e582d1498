import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Kysely, SqliteDialect, sql } from "kysely";
import { chunkRowCounts, insertInChunks, MAX_BOUND_PARAMETERS, maxRowsPerInsert } from "./chunked-insert.js";
import { migrateToLatest } from "./db.js";
import type { BatchItemsTable, Schema } from "./schema.js";
import { openSqlite } from "./sqlite-driver.js";

const item = (seq: number): BatchItemsTable => ({
  id: `item_${String(seq).padStart(6, "0")}`,
  batch_id: "batch_1",
  account_id: "acct_1",
  seq,
  lead_id: null,
  input: `site-${seq}.test`,
  group_key: `site-${seq}.test`,
  status: "pending",
  verdict: null,
  result: null,
  error: null,
  completed_at: null,
});

describe("chunked inserts", () => {
  it("fits as many rows as the parameter limit allows", () => {
    for (const [columns, limit, rows] of [
      [47, MAX_BOUND_PARAMETERS.sqlite, 697],
      [12, MAX_BOUND_PARAMETERS.sqlite, 2730],
      [47, MAX_BOUND_PARAMETERS.postgres, 1394],
      [12, MAX_BOUND_PARAMETERS.postgres, 5461],
      [40_000, MAX_BOUND_PARAMETERS.sqlite, 1],
    ] as const) {
      assert.equal(maxRowsPerInsert(columns, limit), rows, `${columns} columns under ${limit}`);
    }
  });

  it("splits full chunks first, then the remainder in powers of two", () => {
    for (const [count, maxRows, expected] of [
      [0, 697, []],
      [1, 697, [1]],
      [697, 697, [697]],
      [698, 697, [697, 1]],
      [500, 697, [256, 128, 64, 32, 16, 4]],
      [10_000, 2730, [2730, 2730, 2730, 1024, 512, 256, 16, 2]],
      [3, 1, [1, 1, 1]],
    ] as const) {
      assert.deepEqual(chunkRowCounts(count, maxRows), expected, `${count} rows, at most ${maxRows}`);
    }
  });

  it("covers every row exactly once, never over the limit, in a few distinct sizes", () => {
    for (const maxRows of [1, 2, 3, 100, 697, 2730]) {
      const sizes = new Set<number>();
      for (let count = 0; count <= 3 * maxRows + 1; count++) {
        const counts = chunkRowCounts(count, maxRows);
        assert.equal(
          counts.reduce((a, b) => a + b, 0),
          count,
        );
        assert.ok(counts.every((c) => c >= 1 && c <= maxRows));
        for (const c of counts) sizes.add(c);
      }
      assert.ok(sizes.size <= Math.log2(maxRows) + 2, `${sizes.size} sizes for at most ${maxRows} rows`);
    }
  });

  it("inserts every row in order on SQLite, each statement within its parameter limit", async () => {
    const parameters: number[] = [];
    const db = new Kysely<Schema>({
      dialect: new SqliteDialect({ database: openSqlite(":memory:") }),
      log: (event) => {
        if (event.query.sql.startsWith('insert into "batch_items"'))
          parameters.push(event.query.parameters.length);
      },
    });
    try {
      await migrateToLatest(db);
      const rows = Array.from({ length: 6000 }, (_, seq) => item(seq));
      await insertInChunks(db, "batch_items", rows);
      assert.deepEqual(
        parameters,
        [2730, 2730, 512, 16, 8, 4].map((n) => n * 12),
      );
      const stored = await db.selectFrom("batch_items").select("seq").orderBy(sql`rowid`).execute();
      assert.deepEqual(
        stored.map((r) => r.seq),
        rows.map((r) => r.seq),
      );
    } finally {
      await db.destroy();
    }
  });

  it("builds each statement shape once, and stores what Kysely's own statement would", async () => {
    const statements: string[] = [];
    const db = new Kysely<Schema>({
      dialect: new SqliteDialect({ database: openSqlite(":memory:") }),
      log: (event) => {
        if (event.query.sql.startsWith('insert into "batch_items"')) statements.push(event.query.sql);
      },
    });
    try {
      await migrateToLatest(db);
      const kysely = db
        .insertInto("batch_items")
        .values([item(0), item(1)])
        .compile();
      await insertInChunks(db, "batch_items", [item(0), item(1)]);
      await insertInChunks(db, "batch_items", [{ ...item(2), verdict: "valid" }, item(3)]);
      // Same columns in another order: another shape, still each value in its column.
      const { seq, id, ...rest } = item(4);
      await insertInChunks(db, "batch_items", [{ seq, ...rest, id, error: "boom" }]);
      // An SQL expression as a value: built by Kysely, not taken as a parameter.
      await insertInChunks(db, "batch_items", [{ ...item(5), input: sql<string>`upper('site-5.test')` }]);
      // A row without a column the others have: built by Kysely (the column's default).
      const { completed_at: _, ...short } = item(7);
      await insertInChunks(db, "batch_items", [item(6), short]);
      assert.equal(statements[0], kysely.sql);
      assert.equal(statements[1], kysely.sql);
      const stored = await db.selectFrom("batch_items").selectAll().orderBy("seq").execute();
      assert.deepEqual(stored, [
        item(0),
        item(1),
        { ...item(2), verdict: "valid" },
        item(3),
        { ...item(4), error: "boom" },
        { ...item(5), input: "SITE-5.TEST" },
        item(6),
        item(7),
      ]);
    } finally {
      await db.destroy();
    }
  });

  it("relies on a limit the bundled SQLite accepts", () => {
    const sqlite = openSqlite(":memory:");
    try {
      const marks = Array(MAX_BOUND_PARAMETERS.sqlite).fill("?").join(",");
      const values = Array.from({ length: MAX_BOUND_PARAMETERS.sqlite }, (_, i) => i);
      assert.deepEqual(sqlite.prepare(`select 7 in (${marks}) as found`).get(values), { found: 1 });
    } finally {
      sqlite.close();
    }
  });

  it("sends no statement for no rows", async () => {
    const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: openSqlite(":memory:") }) });
    try {
      // No table here: any statement would fail.
      await insertInChunks(db, "batch_items", []);
    } finally {
      await db.destroy();
    }
  });
});
