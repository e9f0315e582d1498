// Updates of many rows by id at once (src/storage/bulk-update.ts) against each real
// database: every row gets its own values of each column type, the match conditions hold, and
// rows outside the update are untouched.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CompiledQuery } from "kysely";
import {
  compileJsonUpdate,
  compileLockMatching,
  compileSingleRowUpdate,
  updateRowsById,
} from "../../src/storage/bulk-update.js";
import { insertInChunks } from "../../src/storage/chunked-insert.js";
import { pendingItem } from "../support/batch-items.js";
import { createTestDatabase, dialects, skipReasonFor, type TestDatabase } from "../support/db.js";

const item = (batchId: string, seq: number) => pendingItem(batchId, seq, "acct_bulk");

for (const kind of dialects()) {
  describe(`bulk updates by id on ${kind}`, async () => {
    const skip = await skipReasonFor(kind);
    let t: TestDatabase;
    const stored = (batchId: string) =>
      t.database.db
        .selectFrom("batch_items")
        .selectAll()
        .where("batch_id", "=", batchId)
        .orderBy("seq")
        .execute();

    before(async () => {
      if (!skip) t = await createTestDatabase(kind);
    });
    after(async () => {
      await t?.destroy();
    });

    test("gives each row its own values, of every column type, and returns the ids", { skip }, async () => {
      const rows = Array.from({ length: 300 }, (_, seq) => item("b_each", seq));
      await insertInChunks(t.database.db, "batch_items", rows);
      // Text that JSON and SQL both escape, a JSON document kept as text, an integer, and null.
      const changes = (seq: number) => ({
        status: "done",
        verdict: seq % 2 === 0 ? "valid" : null,
        result: JSON.stringify({ rating: seq, note: `it's "quoted" \\ ${"é☃"} ${seq}` }),
        error: seq % 3 === 0 ? `error ${seq}\nline two` : null,
        seq: seq + 10_000,
        completed_at: `2026-11-25T07:00:${String(seq % 60).padStart(2, "0")}.000Z`,
      });
      const targets = rows.filter((row) => row.seq % 5 !== 4);
      const updated = await updateRowsById(
        t.database.db,
        "batch_items",
        targets.map((row) => ({ id: row.id, changes: changes(row.seq) })),
      );
      assert.deepEqual([...updated].sort(), targets.map((row) => row.id).sort());
      const after = await t.database.db
        .selectFrom("batch_items")
        .selectAll()
        .where("batch_id", "=", "b_each")
        .orderBy("id")
        .execute();
      assert.deepEqual(
        after,
        rows.map((row) => (row.seq % 5 === 4 ? row : { ...row, ...changes(row.seq) })),
      );
    });

    test("updates only the rows that meet the match, null meaning is null", { skip }, async () => {
      const rows = Array.from({ length: 6 }, (_, seq) => item("b_match", seq));
      rows[1] = { ...rows[1]!, status: "done" };
      rows[2] = { ...rows[2]!, verdict: "risky" };
      await insertInChunks(t.database.db, "batch_items", rows);
      const updated = await updateRowsById(
        t.database.db,
        "batch_items",
        [
          ...rows.map((row) => ({ id: row.id, changes: { status: "failed" } })),
          { id: "item_absent", changes: { status: "failed" } },
        ],
        { status: "pending", verdict: null },
      );
      assert.deepEqual([...updated].sort(), [rows[0]!.id, rows[3]!.id, rows[4]!.id, rows[5]!.id]);
      assert.deepEqual(
        (await stored("b_match")).map((row) => row.status),
        ["failed", "done", "pending", "failed", "failed", "failed"],
      );
    });

    test("takes rows that name different columns, in a transaction", { skip }, async () => {
      const rows = Array.from({ length: 4 }, (_, seq) => item("b_mixed", seq));
      rows[2] = { ...rows[2]!, error: "kept" };
      await insertInChunks(t.database.db, "batch_items", rows);
      const updated = await t.database.db.transaction().execute((trx) =>
        updateRowsById(trx, "batch_items", [
          { id: rows[0]!.id, changes: { verdict: "valid" } },
          { id: rows[1]!.id, changes: { error: "boom", status: "failed" } },
          // Undefined leaves the column alone, as in Kysely's set().
          { id: rows[2]!.id, changes: { verdict: "invalid", error: undefined } },
          { id: rows[3]!.id, changes: {} },
        ]),
      );
      assert.equal(updated.size, 3);
      assert.deepEqual(await stored("b_mixed"), [
        { ...rows[0]!, verdict: "valid" },
        { ...rows[1]!, error: "boom", status: "failed" },
        { ...rows[2]!, verdict: "invalid" },
        rows[3]!,
      ]);
    });

    test("finds each row by its key, even while the table's statistics are stale", { skip }, async () => {
      // A fresh import: thousands of rows of one batch that the planner has no statistics for, and
      // a chunk of 250 of them to finish.
      const rows = Array.from({ length: 20_000 }, (_, seq) => item("b_stale", seq));
      await insertInChunks(t.database.db, "batch_items", rows);
      const chunk = rows
        .filter((row) => row.seq % 80 === 0)
        .map((row) => ({ id: row.id, changes: { verdict: "valid" } }));
      const match = { batch_id: "b_stale", status: "pending" };
      // PostgreSQL selects the matching rows by id, then updates by id alone; SQLite updates each
      // row by its own statement.
      const statements =
        kind === "postgres"
          ? [
              compileLockMatching(
                t.database.db,
                "batch_items",
                chunk.map((row) => row.id),
                match,
              ),
              compileJsonUpdate(t.database.db, "batch_items", chunk),
            ]
          : [compileSingleRowUpdate("batch_items", chunk[0]!, match)];
      for (const statement of statements) {
        const explain = kind === "postgres" ? "explain" : "explain query plan";
        const plan = await t.database.db.executeQuery(
          CompiledQuery.raw(`${explain} ${statement.sql}`, [...statement.parameters]),
        );
        // The plan without the id list, which would fill a failure's message.
        const text = plan.rows
          .map((row) => Object.values(row as object).join(" "))
          .join("\n")
          .replace(/'{[^}]*}'/g, "'{…}'");
        // By key, or one pass over the table where that costs less (PostgreSQL's choice here, with
        // 250 of 25,000 small rows); never through a batch's (batch_id, ...) or pending-items index,
        // and never the table once per JSON row.
        assert.match(
          text,
          kind === "postgres"
            ? /(Index Scan using|Bitmap Index Scan on) batch_items_pkey|Seq Scan on batch_items/
            : /SEARCH batch_items USING INDEX sqlite_autoindex_batch_items_1 \(id=\?\)/,
        );
        assert.doesNotMatch(text, /batch_items_batch|pending_lead|Nested Loop[\s\S]*Seq Scan on batch_items/);
      }
    });

    test("refuses a column name that is not one", { skip }, async () => {
      await assert.rejects(
        updateRowsById(t.database.db, "batch_items", [{ id: "x", changes: { 'status" = 1; --': "done" } }]),
        TypeError,
      );
      assert.deepEqual(await updateRowsById(t.database.db, "batch_items", []), new Set());
    });
  });
}
