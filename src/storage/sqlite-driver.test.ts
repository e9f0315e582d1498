import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chooseSqlitePackage, openSqlite, sqliteDriver } from "./sqlite-driver.js";

describe("SQLite driver", () => {
  it("takes better-sqlite3 13 only where Node-API 10 loads it, and never 12 on Node 24", () => {
    for (const [nodeMajor, napiVersion, isNapiInstalled, expected] of [
      [20, 9, false, "better-sqlite3"],
      // A tree installed on a newer Node, then run on 20: 13 would crash on load.
      [20, 9, true, "better-sqlite3"],
      // Node 22.12 and 22.13 have Node-API 9; npm installs 13 there (its engines say >= 22).
      [22, 9, true, "better-sqlite3"],
      [22, 10, true, "better-sqlite3-napi"],
      [22, 10, false, "better-sqlite3"],
      [24, 10, true, "better-sqlite3-napi"],
      [26, 10, true, "better-sqlite3-napi"],
    ] as const) {
      assert.deepEqual(
        chooseSqlitePackage({ nodeMajor, napiVersion }, isNapiInstalled),
        { package: expected },
        `Node ${nodeMajor}, Node-API ${napiVersion}, 13 installed: ${isNapiInstalled}`,
      );
    }
  });

  it("refuses to run 12 on Node 24 and says how to install 13", () => {
    const choice = chooseSqlitePackage({ nodeMajor: 24, napiVersion: 10 }, false);
    assert.ok("refusal" in choice);
    assert.match(choice.refusal, /aborts on Node 24.*npm install/s);
  });

  it("names the driver it loaded, and that driver does what the storage layer asks of it", () => {
    assert.match(sqliteDriver().name, /^better-sqlite3@1[23]\.\d+\.\d+/);
    const sqlite = openSqlite(":memory:");
    try {
      sqlite.pragma("foreign_keys = ON");
      assert.equal(sqlite.pragma("foreign_keys", { simple: true }), 1);
      // Lead search (migration 0010) needs FTS5 with the trigram tokenizer.
      sqlite.exec("create virtual table t using fts5(v, tokenize = 'trigram')");
      const insertMany = sqlite.transaction((values: string[]) => {
        const insert = sqlite.prepare("insert into t (v) values (?)");
        for (const value of values) insert.run(value);
      });
      insertMany(["alice@acme.test", "bob@globex.test"]);
      assert.equal(sqlite.inTransaction, false);
      const select = sqlite.prepare("select v from t where v match ? order by v");
      assert.deepEqual(select.all("acme"), [{ v: "alice@acme.test" }]);
      // prepared.ts reads in raw mode with the statement's column names.
      const raw = sqlite.prepare("select v, length(v) as n from t order by v").raw(true);
      assert.deepEqual(
        raw.columns().map((column) => column.name),
        ["v", "n"],
      );
      assert.deepEqual(raw.all(), [
        ["alice@acme.test", 15],
        ["bob@globex.test", 15],
      ]);
      // The statement cache (sqlite-dialect.ts) does not share a statement that is still streaming.
      const rows = select.iterate("test");
      rows.next();
      assert.equal(select.busy, true);
      rows.return?.();
      assert.equal(select.busy, false);
    } finally {
      sqlite.close();
    }
  });
});
