import type { Kysely } from "kysely";
import { type RowUpdate, updateRowsById } from "../bulk-update.js";
import type { Schema } from "../schema.js";

// Re-rates every validated lead under ADR 0004's second revision, from the factors it stores:
// "no website" is worth 0 (it was +25), and the undeliverable cap and the 0-100 bounds are factors
// carrying the points they moved, so a stored rating is the sum of its stored factors. Every other
// factor keeps its points, so the stored factors are all the input this needs; no check is re-run
// and no credit is spent. The rules are copied here, not imported: a released migration must not
// change when the rating code does.
interface Factor {
  code: string;
  label: string;
  points: number;
}

const PAGE = 500;
const SETTLING = new Set(["cap_undeliverable", "rating_ceiling", "rating_floor"]);

export function rerate(stored: readonly Factor[]): Factor[] {
  const factors = stored
    .filter((f) => !SETTLING.has(f.code))
    .map((f) =>
      f.code === "no_website"
        ? { code: "no_website", label: "No website given: nothing to add or take away", points: 0 }
        : f,
    );
  let sum = factors.reduce((total, f) => total + f.points, 0);
  if (factors.some((f) => f.code === "email_undeliverable") && sum > 20) {
    factors.push({ code: "cap_undeliverable", label: "Capped at 20: email undeliverable", points: 20 - sum });
    sum = 20;
  }
  if (sum > 100) factors.push({ code: "rating_ceiling", label: "Capped at 100", points: 100 - sum });
  else if (sum < 0) factors.push({ code: "rating_floor", label: "Raised to the floor of 0", points: -sum });
  return factors;
}

function recommendationFor(rating: number): string {
  if (rating >= 85) return "high_priority";
  if (rating >= 70) return "validate";
  if (rating >= 50) return "research";
  return "skip";
}

function qualityFor(rating: number): string {
  if (rating >= 90) return "excellent";
  if (rating >= 70) return "good";
  if (rating >= 50) return "fair";
  return "poor";
}

export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Schema>;
  let after = "";
  for (;;) {
    const rows = await db
      .selectFrom("leads")
      .select(["id", "rating", "rating_factors"])
      .where("id", ">", after)
      .where("rating_factors", "!=", "[]")
      .orderBy("id")
      .limit(PAGE)
      .execute();
    if (rows.length === 0) return;
    const updates: RowUpdate[] = [];
    for (const row of rows) {
      const factors = rerate(JSON.parse(row.rating_factors) as Factor[]);
      const rating = factors.reduce((total, f) => total + f.points, 0);
      const serialized = JSON.stringify(factors);
      if (rating === Number(row.rating) && serialized === row.rating_factors) continue;
      updates.push({
        id: row.id,
        changes: {
          rating,
          recommendation: recommendationFor(rating),
          quality: qualityFor(rating),
          rating_factors: serialized,
        },
      });
    }
    // One statement per page on PostgreSQL (a round trip per lead took 17.6 s for 20,000 leads).
    await updateRowsById(db, "leads", updates);
    after = rows.at(-1)!.id;
  }
}
