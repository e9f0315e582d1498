// SQLite's lead search index follows the writes (migration 0012, LeadSearchIndexer): a lead is
// found by search before and after it is indexed, edits and deletes of indexed and not-yet-indexed
// leads keep the index exact (FTS5's own integrity check compares it with the leads table), and a
// database from before 0012 keeps its index.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Migrator } from "kysely";
import { newLeadRow } from "../../src/leads/lead-fields.js";
import { LeadsRepo } from "../../src/leads/leads.repo.js";
import { openDatabase } from "../../src/storage/db.js";
import { migrations } from "../../src/storage/migrations/index.js";
import type { SQLite } from "../../src/storage/sqlite-driver.js";
import { createEmptyDatabase, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { waitFor } from "../support/wait-for.js";

const skip = await skipReasonFor("sqlite");

/** FTS5's check that the index holds exactly the leads table's text; throws if not. */
function assertIndexExact(sqlite: SQLite.Database): void {
  sqlite.prepare("insert into leads_search(leads_search) values ('integrity-check')").run();
}

const indexedUpto = (sqlite: SQLite.Database) =>
  (sqlite.prepare("select indexed_upto as n from lead_search_progress").get() as { n: number }).n;
const maxRowid = (sqlite: SQLite.Database) =>
  (sqlite.prepare("select coalesce(max(rowid), 0) as n from leads").get() as { n: number }).n;

describe("lead search index behind the writes (sqlite)", { skip }, () => {
  let h: Harness;
  let key = "";
  let sqlite: SQLite.Database;
  const emailsOf = async (search: string) => {
    const res = await h.call(key, "GET", `/v1/leads?search=${encodeURIComponent(search)}`);
    assert.equal(res.statusCode, 200, res.body);
    return (res.json().leads as { email: string }[]).map((l) => l.email).sort();
  };
  const create = async (email: string, company: string) => {
    const res = await h.call(key, "POST", "/v1/leads", { email, company, validate: false });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().id as string;
  };
  const catchUp = () => h.services.searchIndexer!.catchUp();

  before(async () => {
    h = await startHarness("sqlite", UNLIMITED_RATE_ENV);
    key = await h.apiKey("acct_search_index");
    sqlite = h.services.database.sqlite!;
  });
  after(async () => {
    await h?.close();
  });

  it("finds a new lead before it is indexed, and through the index afterwards", async () => {
    await catchUp();
    const mark = indexedUpto(sqlite);
    await create("quinn@zephyrine.test", "Zephyrine Labs");
    assert.equal(indexedUpto(sqlite), mark, "the create itself leaves the index alone");
    assert.deepEqual(await emailsOf("zephyr"), ["quinn@zephyrine.test"]);
    assert.equal(await catchUp(), 1);
    assert.equal(indexedUpto(sqlite), maxRowid(sqlite));
    assert.deepEqual(await emailsOf("zephyr"), ["quinn@zephyrine.test"]);
    const fromIndex = sqlite
      .prepare(`select count(*) as n from leads_search where leads_search match '"zephyr"'`)
      .get() as { n: number };
    assert.equal(fromIndex.n, 1, "the FTS5 index itself now holds the lead");
    assertIndexExact(sqlite);
    assert.equal(await catchUp(), 0, "nothing left to index");
  });

  it("keeps edits exact for indexed and not-yet-indexed leads", async () => {
    const indexed = await create("rhea@oldco.test", "Oldco Widgets");
    await catchUp();
    const pending = await create("sven@oldco.test", "Oldco Gadgets");
    for (const id of [indexed, pending]) {
      const res = await h.call(key, "PUT", `/v1/leads/${id}`, { company: "Newco Holdings" });
      assert.equal(res.statusCode, 200, res.body);
    }
    assert.deepEqual(await emailsOf("widgets"), []);
    assert.deepEqual(await emailsOf("gadgets"), []);
    assert.deepEqual(await emailsOf("newco"), ["rhea@oldco.test", "sven@oldco.test"]);
    await catchUp();
    assert.deepEqual(await emailsOf("widgets"), []);
    assert.deepEqual(await emailsOf("newco"), ["rhea@oldco.test", "sven@oldco.test"]);
    assertIndexExact(sqlite);
  });

  it("keeps the index exact when leads are deleted, and indexes a lead that reuses a rowid", async () => {
    await create("tove@doomed.test", "Doomed Ventures");
    await catchUp();
    const last = maxRowid(sqlite);
    // No endpoint deletes a lead row (archive is a soft delete); an operator's DELETE, or a
    // foreign-key cascade, fires the delete trigger all the same.
    sqlite.prepare("delete from leads where rowid = ?").run(last);
    assert.deepEqual(await emailsOf("doomed"), []);
    assertIndexExact(sqlite);
    // SQLite hands the highest rowid out again: the new lead sits at the index's mark.
    await create("uma@reborn.test", "Reborn Studio");
    assert.equal(maxRowid(sqlite), last);
    assert.deepEqual(await emailsOf("reborn"), ["uma@reborn.test"]);
    assertIndexExact(sqlite);
    // A lead not indexed yet can go too.
    await create("vera@fleeting.test", "Fleeting Co");
    sqlite.prepare("delete from leads where rowid = ?").run(maxRowid(sqlite));
    await catchUp();
    assert.deepEqual(await emailsOf("fleeting"), []);
    assertIndexExact(sqlite);
  });

  it("indexes new leads on its own shortly after they are created", async () => {
    await create("wren@selfindex.test", "Selfindex Ltd");
    await waitFor(
      async () => (indexedUpto(sqlite) === maxRowid(sqlite) ? true : undefined),
      "the indexer's own run",
    );
    assert.deepEqual(await emailsOf("selfindex"), ["wren@selfindex.test"]);
    assertIndexExact(sqlite);
  });

  it("indexes a bulk import of 1,234 leads", async () => {
    const leads = Array.from({ length: 1_234 }, (_, i) => ({
      email: `bulk${i}@importer.test`,
      company: i === 777 ? "Needle Inc" : "Haystack",
    }));
    for (let i = 0; i < leads.length; i += 500) {
      const res = await h.call(key, "POST", "/v1/leads/bulk", {
        leads: leads.slice(i, i + 500),
        validate: false,
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    assert.deepEqual(await emailsOf("needle"), ["bulk777@importer.test"]);
    await catchUp();
    assert.equal(indexedUpto(sqlite), maxRowid(sqlite));
    assert.deepEqual(await emailsOf("needle"), ["bulk777@importer.test"]);
    assertIndexExact(sqlite);
  });
});

describe("migration 0012-lead-search-deferred (sqlite)", { skip }, () => {
  it("marks every lead indexed before it as indexed, and keeps the index exact", async () => {
    const empty = await createEmptyDatabase("sqlite");
    const database = openDatabase(empty.url, { maxConnections: 1 });
    try {
      const migrate = (all: typeof migrations) =>
        new Migrator({ db: database.db, provider: { getMigrations: async () => all } }).migrateToLatest();
      const before0012 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0012"));
      assert.equal((await migrate(before0012)).error, undefined);
      const repo = new LeadsRepo();
      for (let i = 0; i < 3; i++) {
        const built = newLeadRow(
          "acct_m",
          { email: `old${i}@legacy.test`, company: `Legacy ${i}`, validate: false },
          "api",
          new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
          () => ({ ok: false, message: "no website" }),
        );
        if ("errors" in built) throw new Error(JSON.stringify(built.errors));
        await repo.insert(database.db, built.row);
      }
      assert.equal((await migrate(migrations)).error, undefined);
      const sqlite = database.sqlite!;
      assert.equal(indexedUpto(sqlite), 3);
      assert.equal(maxRowid(sqlite), 3);
      assertIndexExact(sqlite);
      const found = sqlite
        .prepare(`select count(*) as n from leads_search where leads_search match '"legacy"'`)
        .get() as { n: number };
      assert.equal(found.n, 3);
    } finally {
      await database.close();
      await empty.drop();
    }
  });
});
