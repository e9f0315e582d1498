// Prepared reads (src/storage/prepared.ts) on both dialects: values bound per call, rows the same
// as Kysely's, constants kept, and never a look at another flow's uncommitted rows.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { prepareRead } from "../../src/storage/prepared.js";
import { createTestDatabase, dialects, skipReasonFor, type TestDatabase } from "../support/db.js";

const key = (id: string, account: string, revokedAt: string | null = null) => ({
  id,
  account_id: account,
  name: `key ${id}`,
  description: null,
  key_hash: `hash-${id}`,
  last4: "abcd",
  created_at: "2026-01-01T00:00:00.000Z",
  last_used_at: null,
  revoked_at: revokedAt,
});

for (const kind of dialects()) {
  describe(`prepared reads on ${kind}`, async () => {
    const skip = await skipReasonFor(kind);
    let t: TestDatabase;

    before(async () => {
      if (skip) return;
      t = await createTestDatabase(kind);
      await t.database.db
        .insertInto("accounts")
        .values([
          {
            id: "acct_a",
            balance_milli: 0,
            created_at: "2026-01-01T00:00:00.000Z",
            updated_at: "2026-01-01",
          },
          {
            id: "acct_b",
            balance_milli: 0,
            created_at: "2026-01-01T00:00:00.000Z",
            updated_at: "2026-01-01",
          },
        ])
        .execute();
      await t.database.db
        .insertInto("api_keys")
        .values([key("k1", "acct_a"), key("k2", "acct_a"), key("k3", "acct_b", "2026-02-01T00:00:00.000Z")])
        .execute();
    });
    after(async () => {
      await t?.destroy();
    });

    const activeKeysOf = () =>
      prepareRead(t.database, (db, p: { account: string }) =>
        db
          .selectFrom("api_keys")
          .selectAll()
          .where("account_id", "=", p.account)
          .where("revoked_at", "is", null)
          .orderBy("id"),
      );

    test("binds each call's values and returns the rows Kysely would", { skip }, async () => {
      const read = activeKeysOf();
      const viaKysely = await t.database.db
        .selectFrom("api_keys")
        .selectAll()
        .where("account_id", "=", "acct_a")
        .where("revoked_at", "is", null)
        .orderBy("id")
        .execute();
      assert.deepEqual(await read.all({ account: "acct_a" }), viaKysely);
      assert.equal(viaKysely.length, 2);
      assert.deepEqual(await read.all({ account: "acct_b" }), []); // k3 is revoked
      assert.equal((await read.first({ account: "acct_a" }))?.id, "k1");
      assert.equal(await read.first({ account: "nobody" }), undefined);
    });

    test("keeps constants of the query next to the bound values", { skip }, async () => {
      const read = prepareRead(t.database, (db, p: { account: string }) =>
        db
          .selectFrom("api_keys")
          .select("id")
          .where("account_id", "=", p.account)
          .where("name", "=", "key k2"),
      );
      assert.deepEqual(await read.all({ account: "acct_a" }), [{ id: "k2" }]);
    });

    test("refuses a parameter that would be inlined into the SQL text", { skip }, async () => {
      const read = prepareRead(t.database, (db, p: { column: string }) =>
        db.selectFrom("api_keys").select(sql.ref(p.column).as("x")),
      );
      await assert.rejects(read.all({ column: "id" }), /inlined/);
    });

    test("does not see rows of a transaction still open elsewhere", { skip }, async () => {
      const read = activeKeysOf();
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let inserted!: () => void;
      const insertDone = new Promise<void>((resolve) => {
        inserted = resolve;
      });
      const transaction = t.database.db.transaction().execute(async (trx) => {
        await trx.insertInto("api_keys").values(key("k9", "acct_a")).execute();
        inserted();
        await held;
        throw new Error("roll back");
      });
      await insertDone;
      const during = read.all({ account: "acct_a" });
      release();
      await assert.rejects(transaction, /roll back/);
      assert.deepEqual(
        (await during).map((r) => r.id),
        ["k1", "k2"],
      );
      assert.deepEqual(
        (await read.all({ account: "acct_a" })).map((r) => r.id),
        ["k1", "k2"],
      );
    });
  });
}
