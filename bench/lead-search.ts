// Lead search at 100,000 leads (ADR 0015), on SQLite and PostgreSQL: the time of one
// GET /v1/leads?search= page (20 rows and the total, through LeadsRepo.list) for a rare term, a
// common term and a short one, beside two baselines measured in the same run: the same page without
// a search, and the same rare search written the naive way (LIKE over each column, no index).
//   npm run bench:search   (BENCH_DATABASES=sqlite|postgres, BENCH_LEADS=100000, BENCH_ROUNDS=15)
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import type { DatabaseKind } from "../src/config/config.js";
import { EventBus } from "../src/events/events.js";
import { EventsRepo } from "../src/events/events.repo.js";
import { newLeadRow, type WebsiteNormalizer } from "../src/leads/lead-fields.js";
import { LeadSearchIndexer } from "../src/leads/lead-search-indexer.js";
import { LeadsRepo } from "../src/leads/leads.repo.js";
import type { Database } from "../src/storage/db.js";
import type { LeadsTable } from "../src/storage/schema.js";
import { createTestDatabase } from "../test/support/db.js";

const LEADS = Number(process.env.BENCH_LEADS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const KINDS = (process.env.BENCH_DATABASES ?? "sqlite,postgres").split(",") as DatabaseKind[];
const ACCOUNT = "acct_bench";
const FIRST = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"];
const LAST = ["Smith", "Lopez", "Chen", "Müller", "Okafor", "Silva", "Novak", "Kim", "Rossi", "Dubois"];
const COMPANY = [
  "Acme",
  "Globex",
  "Initech",
  "Umbrella",
  "Hooli",
  "Stark",
  "Wayne",
  "Wonka",
  "Tyrell",
  "Cyberdyne",
];

// No bench lead has a website, so this normalizer is never called.
const noWebsite: WebsiteNormalizer = () => ({ ok: false, message: "bench leads have no website" });

/** Lead i as the API would create it (newLeadRow), created i seconds after 2026-01-01. */
function row(i: number, accountId: string): LeadsTable {
  const first = FIRST[i % 10]!;
  const last = LAST[Math.floor(i / 10) % 10]!;
  const company = `${COMPANY[Math.floor(i / 100) % 10]} ${Math.floor(i / 1000)}`;
  // The API refuses non-ASCII local parts (no SMTPUTF8), so Müller's address is muller.
  const local = `${first}.${last}${i}`.normalize("NFD").replace(/\p{M}/gu, "");
  const email = `${local}@${COMPANY[i % 7]!.toLowerCase()}${i % 50}.test`.toLowerCase();
  const input = { email, firstName: first, lastName: last, company, validate: false };
  const built = newLeadRow(accountId, input, "api", new Date(Date.UTC(2026, 0, 1) + i * 1000), noWebsite);
  if ("errors" in built) throw new Error(`bench lead ${i} refused: ${JSON.stringify(built.errors)}`);
  return built.row;
}

/** Leads inserted at once that the search index does not cover yet, in the last case. */
const TAIL = 1000;

/** What the service's LeadSearchIndexer does after the inserts have committed (SQLite). */
async function indexAll(database: Database): Promise<void> {
  const indexer = new LeadSearchIndexer({
    database,
    repo: new LeadsRepo(),
    events: new EventBus(new EventsRepo()),
    onError: (error) => {
      throw error;
    },
  });
  await indexer.catchUp();
  await indexer.close();
}

async function median(run: () => Promise<unknown>): Promise<{ ms: number; result: unknown }> {
  let result: unknown;
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    result = await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, result };
}

async function benchKind(kind: DatabaseKind) {
  const testDb = await createTestDatabase(kind);
  const { db, caps } = testDb.database;
  const repo = new LeadsRepo();
  try {
    const seedStart = performance.now();
    for (let i = 0; i < LEADS; i += 1000) {
      const rows = Array.from({ length: Math.min(1000, LEADS - i) }, (_, j) => row(i + j, ACCOUNT));
      await repo.insertMany(db, rows);
    }
    // Another account's leads share the indexes.
    await repo.insertMany(
      db,
      Array.from({ length: 1000 }, (_, j) => row(LEADS + j, "acct_other")),
    );
    if (caps.leadSearch === "fts5_trigram") await indexAll(testDb.database);
    await sql`analyze`.execute(db);
    const seedS = (performance.now() - seedStart) / 1000;
    const page = (search?: string) => repo.list(db, caps, ACCOUNT, search ? { search } : {}, 20, 0);
    const naive = (term: string) => {
      const like = `%${term}%`;
      return db
        .selectFrom("leads")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("account_id", "=", ACCOUNT)
        .where("archived_at", "is", null)
        .where((eb) =>
          eb.or([
            eb(sql`lower(email)`, "like", like),
            eb(sql`lower(first_name)`, "like", like),
            eb(sql`lower(last_name)`, "like", like),
            eb(sql`lower(company)`, "like", like),
          ]),
        )
        .executeTakeFirstOrThrow();
    };
    const cases: [string, () => Promise<unknown>][] = [
      ["baseline: first page, no search", () => page()],
      ["baseline: naive LIKE on 4 columns (count only), 'lopez4212'", () => naive("lopez4212")],
      ["search 'lopez4212' (rare, 1 match)", () => page("lopez4212")],
      ["search 'globex 42' (company, 100 matches)", () => page("globex 42")],
      ["search 'umbrella' (common, 10% of leads)", () => page("umbrella")],
      ["search 'zq' (2 chars: scan, no match)", () => page("zq")],
    ];
    console.log(
      `\n${kind}: ${LEADS.toLocaleString()} leads seeded in ${seedS.toFixed(1)} s; median of ${ROUNDS} runs`,
    );
    for (const [name, run] of cases) {
      const { ms, result } = await median(run);
      const total = (result as { total?: number; n?: number }).total ?? Number((result as { n?: number }).n);
      console.log(`  ${name.padEnd(62)} ${ms.toFixed(2).padStart(9)} ms   (total ${total})`);
    }
    if (caps.leadSearch === "fts5_trigram") {
      // Leads created since the indexer's last run are searched without the index.
      await repo.insertMany(
        db,
        Array.from({ length: TAIL }, (_, j) => row(LEADS + 1000 + j, ACCOUNT)),
      );
      const { ms, result } = await median(() => page("lopez4212"));
      const name = `search 'lopez4212', ${TAIL} leads not indexed yet`;
      console.log(
        `  ${name.padEnd(62)} ${ms.toFixed(2).padStart(9)} ms   (total ${(result as { total: number }).total})`,
      );
      const start = performance.now();
      await indexAll(testDb.database);
      console.log(
        `  ${"indexing those leads (LeadSearchIndexer.catchUp)".padEnd(62)} ${(performance.now() - start).toFixed(2).padStart(9)} ms`,
      );
    }
  } finally {
    await testDb.destroy();
  }
}

console.log(
  `lead search bench; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
for (const kind of KINDS) await benchKind(kind);
