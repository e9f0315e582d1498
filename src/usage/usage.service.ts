// Usage over time for the overview's charts and for SDK users (GET /v1/usage): per UTC day, the
// credits spent and added (from the credit ledger) and the validations counted toward the daily
// limit (decisions §5). Credits here are display credits (1 per check at the spec's prices); the
// ledger stores milli-credits, which are the same number.
import type { Clock } from "../lib/clock.js";
import { invalid } from "../lib/errors.js";
import type { Database } from "../storage/db.js";
import type { UsageRepo } from "./usage.repo.js";

export const USAGE_MAX_DAYS = 366;
export const USAGE_DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

interface UsageDay {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  /** Credits charged that day, in display credits (positive). */
  creditsSpent: number;
  /** Credits granted or bought that day (signup included), in display credits. */
  creditsAdded: number;
  /** Ledger debits that day: one per charged request (a bulk request is one). */
  charges: number;
  /** Lead validations and batch items counted toward the daily validation limit. */
  validations: number;
}

export interface Usage {
  from: string;
  to: string;
  granularity: "day";
  days: UsageDay[];
  totals: Omit<UsageDay, "date">;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class UsageService {
  constructor(private readonly deps: { database: Database; clock: Clock; repo: UsageRepo }) {}

  /** Days [from, to] inclusive (UTC); by default the last 30 days up to today. */
  async daily(
    accountId: string,
    range: { from?: string | undefined; to?: string | undefined },
  ): Promise<Usage> {
    const today = dayOf(this.deps.clock.now().getTime());
    const to = range.to ?? today;
    const toMs = Date.parse(`${to}T00:00:00Z`);
    const from = range.from ?? dayOf(toMs - (USAGE_DEFAULT_DAYS - 1) * DAY_MS);
    const fromMs = Date.parse(`${from}T00:00:00Z`);
    if (Number.isNaN(fromMs) || dayOf(fromMs) !== from)
      throw invalid([{ field: "from", message: "must be a date, YYYY-MM-DD", type: "format" }]);
    if (Number.isNaN(toMs) || dayOf(toMs) !== to)
      throw invalid([{ field: "to", message: "must be a date, YYYY-MM-DD", type: "format" }]);
    if (fromMs > toMs) throw invalid([{ field: "from", message: "must not be after to", type: "range" }]);
    const count = (toMs - fromMs) / DAY_MS + 1;
    if (count > USAGE_MAX_DAYS)
      throw invalid([{ field: "to", message: `at most ${USAGE_MAX_DAYS} days per request`, type: "range" }]);

    const { db } = this.deps.database;
    const [ledger, validations] = await Promise.all([
      this.deps.repo.ledgerByDay(
        db,
        accountId,
        `${from}T00:00:00.000Z`,
        new Date(toMs + DAY_MS).toISOString(),
      ),
      this.deps.repo.validationsByDay(db, accountId, from, to),
    ]);
    const days: UsageDay[] = [];
    const byDate = new Map<string, UsageDay>();
    for (let i = 0; i < count; i++) {
      const date = dayOf(fromMs + i * DAY_MS);
      const day = {
        date,
        creditsSpent: 0,
        creditsAdded: 0,
        charges: 0,
        validations: validations.get(date) ?? 0,
      };
      days.push(day);
      byDate.set(date, day);
    }
    for (const row of ledger) {
      const day = byDate.get(row.day);
      if (!day) continue;
      if (row.kind === "debit") {
        day.creditsSpent += -row.sumMilli;
        day.charges += row.entries;
      } else {
        day.creditsAdded += row.sumMilli;
      }
    }
    const totals = { creditsSpent: 0, creditsAdded: 0, charges: 0, validations: 0 };
    for (const day of days) {
      totals.creditsSpent += day.creditsSpent;
      totals.creditsAdded += day.creditsAdded;
      totals.charges += day.charges;
      totals.validations += day.validations;
    }
    return { from, to, granularity: "day", days, totals };
  }
}
