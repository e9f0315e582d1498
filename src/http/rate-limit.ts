// Per-key rate limits (decisions §7): the global limits (per minute, per hour) and the route's own
// limit all apply; the X-RateLimit-* headers show the one with the fewest requests left. Counters
// live in memory in embedded mode and in Redis when REDIS_URL is set, so they hold across
// instances. rate-limiter-flexible does the counting.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import type { Config } from "../config/config.js";
import { fail } from "../lib/errors.js";
import { routeOptionsOf } from "./route-options.js";

interface NamedLimiter {
  limiter: RateLimiterAbstract;
  points: number;
  label: string;
}

function makeLimiter(redis: Redis | undefined, keyPrefix: string, points: number, duration: number) {
  const memory = new RateLimiterMemory({ keyPrefix, points, duration });
  if (!redis) return memory;
  // If Redis is unreachable, count in memory rather than refuse or wave everything through.
  return new RateLimiterRedis({ storeClient: redis, keyPrefix, points, duration, insuranceLimiter: memory });
}

export class RateLimits {
  private readonly global: NamedLimiter[];
  private readonly perRoute = new Map<string, NamedLimiter>();

  constructor(config: Config["rateLimits"], redis: Redis | undefined) {
    this.global = [
      {
        limiter: makeLimiter(redis, "rl:global:m", config.globalPerMinute, 60),
        points: config.globalPerMinute,
        label: `${config.globalPerMinute} requests per minute`,
      },
      {
        limiter: makeLimiter(redis, "rl:global:h", config.globalPerHour, 3600),
        points: config.globalPerHour,
        label: `${config.globalPerHour} requests per hour`,
      },
    ];
    for (const [route, points] of Object.entries(config.perEndpointPerMinute)) {
      this.perRoute.set(route, {
        limiter: makeLimiter(redis, `rl:route:${route}`, points, 60),
        points,
        label: `${points} requests per minute for ${route}`,
      });
    }
  }

  limitersFor(routeKey: string): NamedLimiter[] {
    const own = this.perRoute.get(routeKey);
    return own ? [...this.global, own] : this.global;
  }

  hook() {
    return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const principal = request.principal;
      // Publishable keys are counted by the widget's own per-visitor limits (src/widget/).
      if (!principal || principal.via === "admin" || principal.via === "publishable_key") return;
      const routeKey = `${request.method} ${routeOptionsOf(request).url}`;
      const now = Date.now();
      const limiters = this.limitersFor(routeKey);
      // All counters at once: with Redis, one round trip instead of one per limit.
      const outcomes = await Promise.allSettled(
        limiters.map((n) => n.limiter.consume(principal.rateLimitKey)),
      );
      let tightest: { res: RateLimiterRes; points: number } | undefined;
      for (const [i, outcome] of outcomes.entries()) {
        const named = limiters[i]!;
        if (outcome.status === "rejected") {
          const rejection: unknown = outcome.reason;
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          setHeaders(reply, named.points, 0, now + rejection.msBeforeNext);
          throw fail({
            kind: "rate_limited",
            label: named.label,
            retryAfterMs: rejection.msBeforeNext,
          });
        }
        const res = outcome.value;
        if (!tightest || res.remainingPoints < tightest.res.remainingPoints)
          tightest = { res, points: named.points };
      }
      if (tightest)
        setHeaders(reply, tightest.points, tightest.res.remainingPoints, now + tightest.res.msBeforeNext);
    };
  }
}

export const RATE_LIMIT_HEADERS = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
] as const;

function setHeaders(reply: FastifyReply, limit: number, remaining: number, resetAtMs: number): void {
  reply.header("X-RateLimit-Limit", String(limit));
  reply.header("X-RateLimit-Remaining", String(Math.max(0, remaining)));
  reply.header("X-RateLimit-Reset", String(Math.ceil(resetAtMs / 1000)));
}
