// Abuse limits of publishable keys, counted per key: requests per visitor IP and per address each
// minute, distinct addresses per IP per UTC day, and addresses charged per key per UTC day. Counters
// live in Redis when it is configured (so they hold across instances; rate-limiter-flexible does the
// counting) and in memory otherwise (MemoryWindowCounters: the same fixed windows, first hit to
// first hit + duration, and the same time until the next window, ADR 0057). "First time today"
// marks (is this address new for this key, or for this IP?) use SET NX in Redis, a map in memory.
//
// In memory every answer is known at once, so it is returned as is, not as a promise: the widget's
// check awaits only what is really pending (`Maybe` below).
import type { Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import type { WidgetLimits } from "../keys/key-policy.js";
import { type CounterWindow, MemoryWindowCounters } from "../lib/window-counters.js";

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
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  /** Without Redis: the counters (with Redis, rate-limiter-flexible's own memory is its insurance). */
  private readonly memory: MemoryWindowCounters | undefined;
  private today = { day: "", endMs: 0 };

  constructor(private readonly deps: WidgetLimiterDeps) {
    this.marks = deps.redis ? new RedisMarks(deps.redis) : new MemoryMarks(deps.nowMs);
    this.memory = deps.redis ? undefined : new MemoryWindowCounters(deps.nowMs);
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
    if (this.memory) {
      const window = this.windowOf(limit, points, durationS);
      const [hit] = this.memory.hitNow(key, window);
      return hit!.consumed > points ? limited(limit, points, hit!.msBeforeNext) : OK;
    }
    return this.takeFromRedis(limit, points, durationS, key);
  }

  private async takeFromRedis(
    limit: LimitName,
    points: number,
    durationS: number,
    key: string,
  ): Promise<LimitOutcome> {
    try {
      await this.limiter(limit, points, durationS).consume(key);
      return OK;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return limited(limit, points, rejection.msBeforeNext);
    }
  }

  /** rate-limiter-flexible's key prefix for the limit, as a counter window (one per limit and points). */
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

  private limiter(name: LimitName, points: number, durationS: number): RateLimiterAbstract {
    const id = `${name}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const keyPrefix = `lc:wl:${id}`;
      limiter = new RateLimiterRedis({
        storeClient: this.deps.redis,
        keyPrefix,
        points,
        duration: durationS,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: durationS }),
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}

const OK: LimitOutcome = Object.freeze({ kind: "ok" });

function limited(limit: LimitName, points: number, retryAfterMs: number): LimitOutcome {
  return { kind: "limited", limit, points, retryAfterMs };
}
