// Abuse limits of publishable keys, counted per key: requests per visitor IP and per address each
// minute, distinct addresses per IP per UTC day, and addresses charged per key per UTC day. Counters
// live in Redis when it is configured (so they hold across instances) and in memory otherwise;
// rate-limiter-flexible does the counting. "First time today" marks (is this address new for this
// key, or for this IP?) use SET NX in Redis, a map in memory.
import type { Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import type { WidgetLimits } from "../keys/key-policy.js";

export type LimitName = keyof WidgetLimits;

export type LimitOutcome =
  | { kind: "ok" }
  | { kind: "limited"; limit: LimitName; points: number; retryAfterMs: number };

const DAY_MS = 86_400_000;

export interface DayMarks {
  /** True when `member` was not yet marked under `scope` (and marks it now, until `untilMs`). */
  markFirst(scope: string, member: string, untilMs: number): Promise<boolean>;
  /** Removes a mark (a charge that did not go through). */
  unmark(scope: string, member: string): Promise<void>;
}

class MemoryMarks implements DayMarks {
  private readonly marks = new Map<string, number>();
  constructor(private readonly nowMs: () => number) {}

  async markFirst(scope: string, member: string, untilMs: number): Promise<boolean> {
    const key = `${scope}|${member}`;
    const now = this.nowMs();
    const until = this.marks.get(key);
    if (until !== undefined && until > now) return false;
    if (this.marks.size >= 500_000) for (const [k, u] of this.marks) if (u <= now) this.marks.delete(k);
    this.marks.set(key, untilMs);
    return true;
  }

  async unmark(scope: string, member: string): Promise<void> {
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
  private today = { day: "", endMs: 0 };

  constructor(private readonly deps: WidgetLimiterDeps) {
    this.marks = deps.redis ? new RedisMarks(deps.redis) : new MemoryMarks(deps.nowMs);
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
  async take(limit: LimitName, points: number, subject: string): Promise<LimitOutcome> {
    const daily = limit === "dailyCap" || limit === "distinctEmailsPerIpPerDay";
    const key = daily ? `${subject}|${this.day().day}` : subject;
    try {
      await this.limiter(limit, points, daily ? DAY_MS / 1000 : 60).consume(key);
      return { kind: "ok" };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { kind: "limited", limit, points, retryAfterMs: rejection.msBeforeNext };
    }
  }

  private limiter(name: LimitName, points: number, durationS: number): RateLimiterAbstract {
    const id = `${name}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const keyPrefix = `lc:wl:${id}`;
      const memory = new RateLimiterMemory({ keyPrefix, points, duration: durationS });
      limiter = this.deps.redis
        ? new RateLimiterRedis({
            storeClient: this.deps.redis,
            keyPrefix,
            points,
            duration: durationS,
            insuranceLimiter: memory,
          })
        : memory;
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}
