// Migration 0013 on a database that holds leads rated under the first rules: "no website" +25 and
// a 0-point cap. After it every stored rating is the sum of its stored factors.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Migrator, sql } from "kysely";
import { openDatabase } from "../../src/storage/db.js";
import { migrations } from "../../src/storage/migrations/index.js";
import { createEmptyDatabase, dialects, skipReasonFor } from "../support/db.js";

const f = (code: string, points: number, label = code) => ({ code, label, points });

/** Leads as the first rules stored them: rating, recommendation, factors. */
const OLD: [string, number, string, ReturnType<typeof f>[]][] = [
  // A confirmed mailbox without a website: 60 + 25.
  [
    "lead_a_nosite",
    85,
    "high_priority",
    [f("email_deliverable", 60), f("no_website", 25, "No website to check")],
  ],
  // The firewalled gmail lead: undeliverable 0 + 25, capped to 20 by a 0-point cap.
  [
    "lead_b_gmail",
    20,
    "skip",
    [f("email_undeliverable", 0), f("no_website", 25, "No website to check"), f("cap_undeliverable", 0)],
  ],
  // Undeliverable with a live website: 0 + 40, capped to 20.
  [
    "lead_c_capped",
    20,
    "skip",
    [
      f("email_undeliverable", 0),
      f("website_active", 20),
      f("ssl_valid", 8),
      f("domain_not_parked", 6),
      f("fast_response", 4),
      f("few_redirects", 2),
      f("cap_undeliverable", 0),
    ],
  ],
  // Clamped at 0 without saying so: 20 - 30 - 10 - 5 - 10 + 0.
  [
    "lead_d_floor",
    0,
    "skip",
    [
      f("email_unverified", 20),
      f("email_disposable", -30),
      f("email_role", -10),
      f("email_free_provider", -5),
      f("email_high_risk", -10),
      f("website_unreachable", 0),
    ],
  ],
  // Already a plain sum: untouched.
  [
    "lead_e_plain",
    68,
    "research",
    [
      f("email_deliverable", 60),
      f("website_inactive", 5),
      f("ssl_invalid", 0),
      f("domain_not_parked", 6),
      f("no_spf", -3),
    ],
  ],
];

for (const kind of dialects()) {
  describe(`migration 0013-rerate-leads (${kind})`, async () => {
    const skip = await skipReasonFor(kind);

    it("re-rates stored leads from their factors: no website is 0, caps and bounds carry what they moved", {
      skip,
    }, async () => {
      const empty = await createEmptyDatabase(kind);
      const database = openDatabase(empty.url, { maxConnections: 2 });
      try {
        const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0013"));
        const upTo = new Migrator({ db: database.db, provider: { getMigrations: async () => before } });
        assert.equal((await upTo.migrateToLatest()).error, undefined);
        const rows = [...OLD, ["lead_f_new", 0, "skip", []] as (typeof OLD)[number]];
        for (const [id, rating, recommendation, factors] of rows) {
          const email = `${id}@acme.test`;
          await sql`insert into leads (id, account_id, email, email_lower, normalized_email, tags, priority, active,
            custom_fields, source, metadata, validation_status, rating, recommendation, quality, rating_factors,
            created_at, updated_at)
            values (${id}, 'acct', ${email}, ${email}, ${email}, '[]', 'normal', 1, '{}', 'api', '{}', 'valid',
            ${rating}, ${recommendation}, 'poor', ${JSON.stringify(factors)}, '2026-01-01T00:00:00Z',
            '2026-01-01T00:00:00Z')`.execute(database.db);
        }
        const all = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
        assert.equal((await all.migrateToLatest()).error, undefined);
        const after = await database.db
          .selectFrom("leads")
          .select(["id", "rating", "recommendation", "quality", "rating_factors", "updated_at"])
          .orderBy("id")
          .execute();
        const byId = Object.fromEntries(after.map((r) => [r.id, r]));
        for (const row of after) {
          const factors = JSON.parse(row.rating_factors) as { points: number }[];
          assert.equal(
            factors.reduce((s, x) => s + x.points, 0),
            Number(row.rating),
            `${row.id}: the rating is the sum of its factors`,
          );
        }
        assert.deepEqual(
          after.map((r) => [r.id, Number(r.rating), r.recommendation, r.quality]),
          [
            ["lead_a_nosite", 60, "research", "fair"],
            ["lead_b_gmail", 0, "skip", "poor"],
            ["lead_c_capped", 20, "skip", "poor"],
            ["lead_d_floor", 0, "skip", "poor"],
            ["lead_e_plain", 68, "research", "poor"],
            ["lead_f_new", 0, "skip", "poor"],
          ],
        );
        assert.deepEqual(JSON.parse(byId.lead_b_gmail!.rating_factors), [
          f("email_undeliverable", 0),
          f("no_website", 0, "No website given: nothing to add or take away"),
        ]);
        assert.deepEqual(JSON.parse(byId.lead_c_capped!.rating_factors).at(-1), {
          code: "cap_undeliverable",
          label: "Capped at 20: email undeliverable",
          points: -20,
        });
        assert.deepEqual(JSON.parse(byId.lead_d_floor!.rating_factors).at(-1), {
          code: "rating_floor",
          label: "Raised to the floor of 0",
          points: 35,
        });
        assert.equal(byId.lead_e_plain!.quality, "poor", "an unchanged lead is not rewritten");
        assert.equal(byId.lead_f_new!.rating_factors, "[]");
        assert.ok(
          after.every((r) => r.updated_at === "2026-01-01T00:00:00Z"),
          "a re-rate is not a user edit",
        );
      } finally {
        await database.close();
        await empty.drop();
      }
    });
  });
}
