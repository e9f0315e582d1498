// The widget module, wired from its dependencies (the template of src/webhooks/create-webhooks.ts):
// deps in, the service out. Nothing here reads process.env or opens a socket of its own: the email
// engine probes, Redis (when configured) counts.
import type { Redis } from "ioredis";
import type { EmailVerificationProvider } from "../checks/email/email.types.js";
import type { WidgetConfig } from "../config/widget-config.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { Module } from "../jobs/catalog.js";
import type { KeysService } from "../keys/keys.service.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { type CaptchaVerifier, createCaptchaVerifier } from "./captcha.js";
import { WidgetService } from "./widget.service.js";
import { WidgetChecker } from "./widget-checker.js";
import { WidgetLimiter } from "./widget-limits.js";

export interface WidgetDeps {
  config: { widget: WidgetConfig; prices: { emailCheck: number } };
  database: Pick<Database, "caps">;
  credits: CreditsService;
  keys: KeysService;
  email: EmailVerificationProvider;
  redis: Redis | undefined;
  clock: Clock;
  onError: (error: unknown, context: string) => void;
  /** Tests may pass their own; default: the configured siteverify URLs. */
  captcha?: CaptchaVerifier;
}

export function createWidget(deps: WidgetDeps): Module<{ widget: WidgetService }> {
  const nowMs = () => deps.clock.now().getTime();
  const config = deps.config.widget;
  const checker = new WidgetChecker({
    email: deps.email,
    nowMs,
    recentResultTtlMs: config.recentResultTtlMs,
    onError: deps.onError,
  });
  const widget = new WidgetService({
    config,
    priceMilli: deps.config.prices.emailCheck,
    credits: deps.credits,
    keys: deps.keys,
    checker,
    limiter: new WidgetLimiter({ redis: deps.redis, nowMs }),
    captcha: deps.captcha ?? createCaptchaVerifier(config),
    nowMs,
    isUniqueViolation: deps.database.caps.isUniqueViolation,
  });
  return { services: { widget }, jobs: [] };
}
