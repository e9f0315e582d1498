// Per-key rate limits (decisions §7): the global limits (per minute, per hour) and the route's own
// limit all apply; the X-RateLimit-* headers show the one with the fewest requests left. Counters
// live in memory in embedded mode and in Redis when REDIS_URL is set, so they hold across
// instances. All of a request's limits are counted in one step (src/lib/window-counters.ts).
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import type { Config } from "../config/config.js";
import { fail } from "../lib/errors.js";
import {
  type CounterWindow,
  MemoryWindowCounters,
  RedisWindowCounters,
  type WindowCounters,
} from "../lib/window-counters.js";
import { routeOptionsOf } from "./route-options.js";

interface NamedLimit extends CounterWindow {
  points: number;
  label: string;
}

export class RateLimits {
  private readonly global: NamedLimit[];
  /** Per route (`GET /v1/leads/:leadId`): the global limits and the route's own, counted together. */
  private readonly perRoute = new Map<string, NamedLimit[]>();
  private readonly counters: WindowCounters;

  constructor(config: Config["rateLimits"], redis: Redis | undefined) {
    // All limits of a request are counted in one step: one Redis round trip and one command
    // (ADR 0083). If Redis is unreachable, counting goes on in memory rather than refuse or wave
    // everything through.
    this.counters = redis ? new RedisWindowCounters(redis) : new MemoryWindowCounters();
    this.global = [
      {
        prefix: "rl:global:m",
        durationS: 60,
        points: config.globalPerMinute,
        label: `${config.globalPerMinute} requests per minute`,
      },
      {
        prefix: "rl:global:h",
        durationS: 3600,
        points: config.globalPerHour,
        label: `${config.globalPerHour} requests per hour`,
      },
    ];
    for (const [route, points] of Object.entries(config.perEndpointPerMinute)) {
      this.perRoute.set(route, [
        ...this.global,
        {
          prefix: `rl:route:${route}`,
          durationS: 60,
          points,
          label: `${points} requests per minute for ${route}`,
        },
      ]);
    }
  }

  limitsFor(routeKey: string): readonly NamedLimit[] {
    return this.perRoute.get(routeKey) ?? this.global;
  }

  hook() {
    return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const principal = request.principal;
      // Publishable keys are counted by the widget's own per-visitor limits (src/widget/).
      if (!principal || principal.via === "admin" || principal.via === "publishable_key") return;
      const limits = this.limitsFor(`${request.method} ${routeOptionsOf(request).url}`);
      const now = Date.now();
      const hits = await this.counters.hit(principal.rateLimitKey, limits);
      // A hit past any limit refuses the request (the first such limit names it); otherwise the
      // headers show the limit with the fewest requests left.
      let tightest = -1;
      let tightestRemaining = Number.POSITIVE_INFINITY;
      for (let i = 0; i < limits.length; i++) {
        const { points, label } = limits[i]!;
        const { consumed, msBeforeNext } = hits[i]!;
        if (consumed > points) {
          setHeaders(reply, points, 0, now + msBeforeNext);
          throw fail({ kind: "rate_limited", label, retryAfterMs: msBeforeNext });
        }
        if (points - consumed < tightestRemaining) {
          tightest = i;
          tightestRemaining = points - consumed;
        }
      }
      if (tightest >= 0)
        setHeaders(reply, limits[tightest]!.points, tightestRemaining, now + hits[tightest]!.msBeforeNext);
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
