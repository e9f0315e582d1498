// The widget module, wired from its dependencies (the template of src/webhooks/create-webhooks.ts):
// deps in, the services out. Nothing here reads process.env or opens a socket of its own: the email
// engine probes, Redis (when configured) counts. Closing adds the counts still held in memory.
import type { Redis } from "ioredis";
import type { EmailVerificationProvider } from "../checks/email/email.types.js";
import type { WidgetConfig } from "../config/widget-config.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { Module } from "../jobs/catalog.js";
import type { KeysService } from "../keys/keys.service.js";
import { type Clock, systemClock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { type CaptchaVerifier, createCaptchaVerifier } from "./captcha.js";
import { WidgetService } from "./widget.service.js";
import { WidgetChecker } from "./widget-checker.js";
import { WidgetLimiter } from "./widget-limits.js";
import { WidgetStatsRecorder } from "./widget-stats.js";
import { WidgetStatsRepo } from "./widget-stats.repo.js";
import { WidgetStatsService } from "./widget-stats.service.js";

export interface WidgetDeps {
  config: { widget: WidgetConfig; prices: { emailCheck: number } };
  database: Pick<Database, "caps" | "db">;
  credits: CreditsService;
  keys: KeysService;
  email: EmailVerificationProvider;
  redis: Redis | undefined;
  clock: Clock;
  onError: (error: unknown, context: string) => void;
  /** Tests may pass their own; default: the configured siteverify URLs. */
  captcha?: CaptchaVerifier;
}

export function createWidget(
  deps: WidgetDeps,
): Module<{ widget: WidgetService; widgetStats: WidgetStatsService }> {
  // The system clock's time without a Date each time (read several times per widget check).
  const nowMs = deps.clock === systemClock ? () => Date.now() : () => deps.clock.now().getTime();
  const config = deps.config.widget;
  const checker = new WidgetChecker({
    email: deps.email,
    nowMs,
    recentResultTtlMs: config.recentResultTtlMs,
    onError: deps.onError,
  });
  const limiter = new WidgetLimiter({ redis: deps.redis, nowMs });
  const today = () => limiter.day().day;
  const repo = new WidgetStatsRepo();
  const recorder = new WidgetStatsRecorder({
    repo,
    database: deps.database,
    today,
    flushEveryMs: config.statsFlushMs,
    onError: deps.onError,
  });
  const widget = new WidgetService({
    config,
    priceMilli: deps.config.prices.emailCheck,
    credits: deps.credits,
    keys: deps.keys,
    checker,
    limiter,
    captcha: deps.captcha ?? createCaptchaVerifier(config),
    stats: recorder,
    nowMs,
    isUniqueViolation: deps.database.caps.isUniqueViolation,
  });
  const widgetStats = new WidgetStatsService({
    recorder,
    repo,
    database: deps.database,
    keys: deps.keys,
    today,
  });
  return { services: { widget, widgetStats }, jobs: [], close: () => recorder.close() };
}
