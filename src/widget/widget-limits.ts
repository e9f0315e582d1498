// Abuse limits of publishable keys, counted per key: requests per visitor IP and per address each
// minute, distinct addresses per IP per UTC day, and addresses charged per key per UTC day. Counters
// live in Redis when it is configured (so they hold across instances) and in memory otherwise, both
// through src/lib/window-counters.ts, as the API's rate limits are (fixed windows from the first
// hit, rate-limiter-flexible's keys and Retry-After; ADR 0057, 0083). "First time today" marks (is
// this address new for this key, or for this IP?) use SET NX in Redis, a map in memory.
//
// In memory every answer is known at once, so it is returned as is, not as a promise: the widget's
// check awaits only what is really pending (`Maybe` below).
import type { Redis } from "ioredis";
import type { WidgetLimits } from "../keys/key-policy.js";
import {
  type CounterWindow,
  MemoryWindowCounters,
  RedisWindowCounters,
  type WindowHit,
} from "../lib/window-counters.js";

/** An answer, or a promise of one when it comes from Redis. */
export type Maybe<T> = T | Promise<T>;

export type LimitName = keyof WidgetLimits;

export type LimitOutcome =
  | { kind: "ok" }
  | { kind: "limited"; limit: LimitName; points: number; retryAfterMs: number };

const DAY_MS = 86_400_000;

export interface DayMarks {
  /** True when `member` was not yet marked under `scope` (and marks it now, until `untilMs`). */
  markFirst(scope: string, member: string, untilMs: number): Maybe<boolean>;
  /** Removes a mark (a charge that did not go through). */
  unmark(scope: string, member: string): Maybe<void>;
}

class MemoryMarks implements DayMarks {
  private readonly marks = new Map<string, number>();
  constructor(private readonly nowMs: () => number) {}

  markFirst(scope: string, member: string, untilMs: number): boolean {
    const key = `${scope}|${member}`;
    const now = this.nowMs();
    const until = this.marks.get(key);
    if (until !== undefined && until > now) return false;
    if (this.marks.size >= 500_000) for (const [k, u] of this.marks) if (u <= now) this.marks.delete(k);
    this.marks.set(key, untilMs);
    return true;
  }

  unmark(scope: string, member: string): void {
    this.marks.delete(`${scope}|${member}`);
  }
}

class RedisMarks implements DayMarks {
  constructor(private readonly redis: Redis) {}

  async markFirst(scope: string, member: string, untilMs: number): Promise<boolean> {
    const ttl = Math.max(1, untilMs - Date.now());
    return (await this.redis.set(`lc:wd:${scope}|${member}`, "1", "PX", ttl, "NX")) === "OK";
  }

  async unmark(scope: string, member: string): Promise<void> {
    await this.redis.del(`lc:wd:${scope}|${member}`);
  }
}

export interface WidgetLimiterDeps {
  redis: Redis | undefined;
  nowMs: () => number;
}

export class WidgetLimiter {
  readonly marks: DayMarks;
  /** Without Redis: counters in this process, answered at once. */
  private readonly memory: MemoryWindowCounters | undefined;
  /** With Redis: counters every instance shares (counted in memory while Redis is away). */
  private readonly shared: RedisWindowCounters | undefined;
  private today = { day: "", endMs: 0 };

  constructor(private readonly deps: WidgetLimiterDeps) {
    this.marks = deps.redis ? new RedisMarks(deps.redis) : new MemoryMarks(deps.nowMs);
    this.memory = deps.redis ? undefined : new MemoryWindowCounters(deps.nowMs);
    this.shared = deps.redis ? new RedisWindowCounters(deps.redis) : undefined;
  }

  /** The UTC day ("2026-11-28") and when it ends, ms; worked out once a day, not per request. */
  day(): { day: string; endMs: number } {
    const now = this.deps.nowMs();
    const today = this.today;
    if (now < today.endMs && now >= today.endMs - DAY_MS) return today;
    const endMs = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
    this.today = { day: new Date(now).toISOString().slice(0, 10), endMs };
    return this.today;
  }

  /** Takes one point of `limit` for `subject`; refused when the window's points are spent. */
  take(limit: LimitName, points: number, subject: string): Maybe<LimitOutcome> {
    const daily = limit === "dailyCap" || limit === "distinctEmailsPerIpPerDay";
    const key = daily ? `${subject}|${this.day().day}` : subject;
    const durationS = daily ? DAY_MS / 1000 : 60;
    const window = this.windowOf(limit, points, durationS);
    if (this.memory) return outcomeOf(limit, points, this.memory.hitNow(key, window)[0]!);
    return this.shared!.hit(key, window).then(([hit]) => outcomeOf(limit, points, hit!));
  }

  /** The limit as a counter window (one per limit and points), keyed as rate-limiter-flexible keyed it. */
  private windowOf(name: LimitName, points: number, durationS: number): readonly CounterWindow[] {
    const id = `${name}:${points}`;
    let window = this.windows.get(id);
    if (!window) {
      window = [{ prefix: `lc:wl:${id}`, durationS }];
      this.windows.set(id, window);
    }
    return window;
  }

  private readonly windows = new Map<string, readonly CounterWindow[]>();
}

const OK: LimitOutcome = Object.freeze({ kind: "ok" });

function outcomeOf(limit: LimitName, points: number, hit: WindowHit): LimitOutcome {
  return hit.consumed > points ? { kind: "limited", limit, points, retryAfterMs: hit.msBeforeNext } : OK;
}
