// Chunked inserts (src/storage/chunked-insert.ts) against each real database: statements sized
// right up to the dialect's parameter limit are accepted and every row lands once, in order.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  insertInChunks,
  MAX_BOUND_PARAMETERS,
  maxBoundParametersOf,
  maxRowsPerInsert,
} from "../../src/storage/chunked-insert.js";
import { pendingItem } from "../support/batch-items.js";
import { createTestDatabase, dialects, skipReasonFor, type TestDatabase } from "../support/db.js";

const item = (batchId: string, seq: number) => pendingItem(batchId, seq, "acct_chunks");

for (const kind of dialects()) {
  describe(`chunked inserts on ${kind}`, async () => {
    const skip = await skipReasonFor(kind);
    let t: TestDatabase;

    before(async () => {
      if (!skip) t = await createTestDatabase(kind);
    });
    after(async () => {
      await t?.destroy();
    });

    test("knows the parameter limit of the database, in and out of a transaction", { skip }, async () => {
      assert.equal(maxBoundParametersOf(t.database.db), MAX_BOUND_PARAMETERS[kind]);
      await t.database.db.transaction().execute(async (trx) => {
        assert.equal(maxBoundParametersOf(trx), MAX_BOUND_PARAMETERS[kind]);
      });
    });

    test("takes full statements at the parameter limit and stores every row in order", { skip }, async () => {
      const maxRows = maxRowsPerInsert(Object.keys(item("x", 0)).length, MAX_BOUND_PARAMETERS[kind]);
      const rows = Array.from({ length: 2 * maxRows + 77 }, (_, seq) => item("batch_full", seq));
      await insertInChunks(t.database.db, "batch_items", rows);
      const stored = await t.database.db
        .selectFrom("batch_items")
        .select("seq")
        .where("batch_id", "=", "batch_full")
        .orderBy("seq")
        .execute();
      assert.deepEqual(
        stored.map((r) => r.seq),
        rows.map((r) => r.seq),
      );
    });

    test("inserts inside the caller's transaction: a failure keeps none of the rows", { skip }, async () => {
      const rows = Array.from({ length: 3000 }, (_, seq) => item("batch_rolled_back", seq));
      await assert.rejects(
        t.database.db.transaction().execute(async (trx) => {
          await insertInChunks(trx, "batch_items", rows);
          throw new Error("later step failed");
        }),
        /later step failed/,
      );
      const left = await t.database.db
        .selectFrom("batch_items")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("batch_id", "=", "batch_rolled_back")
        .executeTakeFirstOrThrow();
      assert.equal(Number(left.n), 0);
    });
  });
}
