// The only SQL for usage over time: reads of the credit ledger and of the daily validation counts,
// grouped by UTC day. Nothing is written here.
import type { Kysely } from "kysely";
import { sql } from "kysely";
import { firstIdAt } from "../lib/ids.js";
import type { Schema } from "../storage/schema.js";

interface LedgerDay {
  day: string;
  kind: string;
  entries: number;
  sumMilli: number;
}

export class UsageRepo {
  /** Ledger entries of [fromIso, toIso) per UTC day and kind (signup, grant, debit). */
  async ledgerByDay(db: Kysely<Schema>, accountId: string, fromIso: string, toIso: string) {
    // created_at is ISO 8601 text: its first 10 characters are the UTC day on both dialects.
    const day = sql<string>`substr(created_at, 1, 10)`;
    const rows = await db
      .selectFrom("credit_ledger")
      .select([
        day.as("day"),
        "kind",
        (eb) => eb.fn.countAll<number>().as("entries"),
        (eb) => eb.fn.sum<number>("delta_milli").as("sum_milli"),
      ])
      .where("account_id", "=", accountId)
      // Ids sort by time and are never older than their row: the id bounds the (account_id, id)
      // index scan to the period instead of the account's whole history.
      .where("id", ">=", firstIdAt("txn", Date.parse(fromIso)))
      .where("created_at", ">=", fromIso)
      .where("created_at", "<", toIso)
      .groupBy([day, "kind"])
      .execute();
    return rows.map(
      (r): LedgerDay => ({
        day: r.day,
        kind: r.kind,
        entries: Number(r.entries),
        sumMilli: Number(r.sum_milli ?? 0),
      }),
    );
  }

  /** Validations counted toward the daily limit, per day in [fromDay, toDay]. */
  async validationsByDay(db: Kysely<Schema>, accountId: string, fromDay: string, toDay: string) {
    const rows = await db
      .selectFrom("usage_daily")
      .select(["day", "validations"])
      .where("account_id", "=", accountId)
      .where("day", ">=", fromDay)
      .where("day", "<=", toDay)
      .execute();
    return new Map(rows.map((r) => [r.day, Number(r.validations)]));
  }
}
