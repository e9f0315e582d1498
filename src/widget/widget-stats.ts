// The widget's statistics (issue 24, ADR 0052): per publishable key and UTC day, the checks
// answered, the answers the script flags by reason (what a form blocks on), and the abuse limits
// that refused a request. The service counts in the same code path that decides (an answer, a
// refusal), into this process's buffer; the buffer is added to the database every few seconds
// and on close, with additive upserts, so several API instances (and Redis-backed limits, which
// decide on any instance) sum correctly. A report first adds what this process still holds, so
// what it answered is in the figures; another instance's last few seconds may not be yet.
// Counts only: no address and no IP is kept.
import type { Database } from "../storage/db.js";
import type { StatsRow, WidgetStatsRepo } from "./widget-stats.repo.js";
import type { WidgetVerdict } from "./widget-verdict.js";

/** Why the script flags an answer, in its own order (a typo first: the visitor can fix it). */
const FLAG_REASONS = ["typo", "disposable", "invalid", "role"] as const;
export type FlagReason = (typeof FLAG_REASONS)[number];

/** Refusals by cause: the four abuse limits, a forged or missing origin, a failed CAPTCHA. */
const CAP_HITS = [
  "perIpPerMinute",
  "perEmailPerMinute",
  "distinctEmailsPerIpPerDay",
  "dailyCap",
  "origin",
  "captcha",
] as const;
type CapHit = (typeof CAP_HITS)[number];

/** Answers by what happened to them: checked, charged, answered unknown (fail open), unpaid. */
const ANSWER_COUNTS = ["checks", "charged", "unknown", "unpaid"] as const;
type AnswerCount = (typeof ANSWER_COUNTS)[number];

export type StatsMetric = AnswerCount | `flag:${FlagReason}` | `cap:${CapHit}`;

/** The reason the script would warn or block on, or null for an answer it lets through quietly. */
export function flagReasonOf(verdict: WidgetVerdict): FlagReason | null {
  if (verdict.reason === "typo" || verdict.didYouMean !== null) return "typo";
  if (verdict.disposable === true) return "disposable";
  if (verdict.status === "invalid") return "invalid";
  if (verdict.role === true) return "role";
  return null;
}

export interface StatsRecorderDeps {
  repo: WidgetStatsRepo;
  database: Pick<Database, "db">;
  /** The UTC day counts go to ("2026-11-28"). */
  today: () => string;
  /** How long counts wait in memory before they are added to the database. */
  flushEveryMs: number;
  onError: (error: unknown, context: string) => void;
}

const SEP = "\u0000";

export class WidgetStatsRecorder {
  /** Counts by "day, account, key", then by metric: one map lookup per request, not per count. */
  private pending = new Map<string, Map<StatsMetric, number>>();
  private timer: NodeJS.Timeout | undefined;
  /** Flushes run one after another, so a report that awaits one sees every earlier count. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly deps: StatsRecorderDeps) {}

  /** Counts one event of each metric for the key, in its data space, today. Never waits. */
  count(accountId: string, keyId: string, ...metrics: StatsMetric[]): void {
    const bucketKey = `${this.deps.today()}${SEP}${accountId}${SEP}${keyId}`;
    let bucket = this.pending.get(bucketKey);
    if (!bucket) {
      bucket = new Map();
      this.pending.set(bucketKey, bucket);
    }
    for (const metric of metrics) bucket.set(metric, (bucket.get(metric) ?? 0) + 1);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush().catch((error: unknown) => this.deps.onError(error, "widget stats flush failed"));
      }, this.deps.flushEveryMs);
      this.timer.unref();
    }
  }

  /** Adds what this process counted to the database. A failed write keeps the counts for the next. */
  flush(): Promise<void> {
    const run = this.chain.then(() => this.write());
    this.chain = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const taken = this.pending;
    this.pending = new Map();
    const increments = [...taken].flatMap(([bucketKey, bucket]) => {
      const [day = "", accountId = "", keyId = ""] = bucketKey.split(SEP);
      return [...bucket].map(([metric, count]) => ({ accountId, keyId, day, metric, count }));
    });
    try {
      await this.deps.repo.add(this.deps.database.db, increments);
    } catch (error) {
      for (const [bucketKey, bucket] of taken) {
        const current = this.pending.get(bucketKey) ?? new Map<StatsMetric, number>();
        for (const [metric, count] of bucket) current.set(metric, (current.get(metric) ?? 0) + count);
        this.pending.set(bucketKey, current);
      }
      throw error;
    }
  }
}

interface StatsDay {
  date: string;
  checks: number;
  flagged: number;
  capHits: number;
}

export interface WidgetStats {
  from: string;
  to: string;
  keyId: string | null;
  livemode: boolean;
  days: StatsDay[];
  totals: Record<AnswerCount, number>;
  flagged: Record<FlagReason, number>;
  capHits: Record<CapHit, number>;
}

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const zeros = <K extends string>(names: readonly K[]) =>
  Object.fromEntries(names.map((name) => [name, 0])) as Record<K, number>;

/** The report of `rows` over the `days` UTC days ending `today`, every day listed (zeros too). */
export function summarize(
  rows: readonly StatsRow[],
  window: { today: string; days: number; keyId: string | null; livemode: boolean },
): WidgetStats {
  const toMs = Date.parse(`${window.today}T00:00:00Z`);
  const days: StatsDay[] = [];
  const byDate = new Map<string, StatsDay>();
  for (let i = window.days - 1; i >= 0; i--) {
    const day = { date: dayOf(toMs - i * DAY_MS), checks: 0, flagged: 0, capHits: 0 };
    days.push(day);
    byDate.set(day.date, day);
  }
  const totals = zeros(ANSWER_COUNTS);
  const flagged = zeros(FLAG_REASONS);
  const capHits = zeros(CAP_HITS);
  for (const row of rows) {
    const day = byDate.get(row.day);
    if (!day) continue;
    const [group, name = ""] = row.metric.split(":");
    if (group === "flag" && name in flagged) {
      flagged[name as FlagReason] += row.count;
      day.flagged += row.count;
    } else if (group === "cap" && name in capHits) {
      capHits[name as CapHit] += row.count;
      day.capHits += row.count;
    } else if (row.metric in totals) {
      totals[row.metric as AnswerCount] += row.count;
      if (row.metric === "checks") day.checks += row.count;
    }
  }
  return {
    from: days[0]?.date ?? window.today,
    to: window.today,
    keyId: window.keyId,
    livemode: window.livemode,
    days,
    totals,
    flagged,
    capHits,
  };
}
