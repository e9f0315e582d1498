// Widget statistics for the dashboard and the API (GET /v1/widget/stats): the counts of one
// publishable key, or of every key of the data space, per UTC day over a window.
import type { KeysService } from "../keys/keys.service.js";
import { isTestSpace } from "../lib/data-space.js";
import { notFound } from "../lib/errors.js";
import type { Database } from "../storage/db.js";
import { summarize, type WidgetStats, type WidgetStatsRecorder } from "./widget-stats.js";
import type { WidgetStatsRepo } from "./widget-stats.repo.js";

export const STATS_MAX_DAYS = 90;
export const STATS_DEFAULT_DAYS = 30;

export interface WidgetStatsServiceDeps {
  recorder: WidgetStatsRecorder;
  repo: WidgetStatsRepo;
  database: Pick<Database, "db">;
  keys: Pick<KeysService, "spaceOfKey">;
  today: () => string;
}

export class WidgetStatsService {
  constructor(private readonly deps: WidgetStatsServiceDeps) {}

  /**
   * The last `days` UTC days up to today. With `keyId`: that publishable key of the account (a
   * test-mode key's counts come from the test space, whichever space asks); without: every key
   * of the asking data space (live keys in the live space, test keys in the test space).
   */
  async report(accountId: string, query: { keyId?: string | undefined; days?: number | undefined }) {
    let space = accountId;
    if (query.keyId !== undefined) {
      const key = await this.deps.keys.spaceOfKey(accountId, query.keyId);
      if (key?.type !== "publishable") throw notFound("Publishable key", { keyId: query.keyId });
      space = key.accountId;
    }
    const days = query.days ?? STATS_DEFAULT_DAYS;
    const today = this.deps.today();
    const from = new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    await this.deps.recorder.flush();
    const rows = await this.deps.repo.byDay(this.deps.database.db, space, query.keyId ?? null, from, today);
    const stats: WidgetStats = summarize(rows, {
      today,
      days,
      keyId: query.keyId ?? null,
      livemode: !isTestSpace(space),
    });
    return stats;
  }
}
