// The only SQL of the widget's statistics: additive upserts of counts per key, UTC day and metric,
// and their read over a window. `count = count + excluded.count` lets every API instance add its
// own increments without reading first (SQLite 3.24+ and PostgreSQL share the syntax).
import { sql } from "kysely";
import type { Executor } from "../storage/executor.js";

export interface StatsIncrement {
  accountId: string;
  keyId: string;
  day: string;
  metric: string;
  count: number;
}

export interface StatsRow {
  keyId: string;
  day: string;
  metric: string;
  count: number;
}

/** Rows per statement: 5 parameters each, far under SQLite's and PostgreSQL's limits. */
const CHUNK = 400;

export class WidgetStatsRepo {
  async add(db: Executor, increments: readonly StatsIncrement[]): Promise<void> {
    for (let i = 0; i < increments.length; i += CHUNK) {
      await db
        .insertInto("widget_stats_daily")
        .values(
          increments.slice(i, i + CHUNK).map((inc) => ({
            account_id: inc.accountId,
            key_id: inc.keyId,
            day: inc.day,
            metric: inc.metric,
            count: inc.count,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(["account_id", "day", "key_id", "metric"])
            .doUpdateSet({ count: sql<number>`widget_stats_daily.count + excluded.count` }),
        )
        .execute();
    }
  }

  /** Counts of [fromDay, toDay] for the data space, of one key or of all. */
  async byDay(
    db: Executor,
    accountId: string,
    keyId: string | null,
    fromDay: string,
    toDay: string,
  ): Promise<StatsRow[]> {
    let query = db
      .selectFrom("widget_stats_daily")
      .select(["key_id", "day", "metric", "count"])
      .where("account_id", "=", accountId)
      .where("day", ">=", fromDay)
      .where("day", "<=", toDay);
    if (keyId !== null) query = query.where("key_id", "=", keyId);
    const rows = await query.execute();
    return rows.map((r) => ({ keyId: r.key_id, day: r.day, metric: r.metric, count: Number(r.count) }));
  }
}
