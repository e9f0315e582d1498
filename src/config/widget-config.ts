// The widget's settings over process.env (WIDGET_*, CAPTCHA_*), parsed once with the rest of the
// configuration (src/config/config.ts). Per-key limits fall back to these defaults.
import { randomBytes } from "node:crypto";
import type { WidgetLimits } from "../keys/key-policy.js";
import { ConfigError } from "./config-error.js";

export interface CaptchaSettings {
  /** The siteverify endpoint (tests point it at test/support/fake-captcha.ts). */
  verifyUrl: string;
  /** Secret of the CAPTCHA site the pages use; unset: checks of keys that require it are refused. */
  secret: string | undefined;
}

export interface WidgetConfig {
  /** Longest the widget endpoint waits for an answer before it says unknown/deadline (<= 10 s). */
  deadlineMs: number;
  /** HMAC secret of verdict tokens; every instance needs the same one (WIDGET_TOKEN_SECRET). */
  tokenSecret: string;
  /** Whether tokenSecret was configured (false: a random one of this process, single instance only). */
  tokenSecretConfigured: boolean;
  /** Token lifetime. */
  tokenTtlMs: number;
  /** How long a finished answer for an address is reused (the "recent result"). */
  recentResultTtlMs: number;
  defaults: WidgetLimits;
  turnstile: CaptchaSettings;
  hcaptcha: CaptchaSettings;
  captchaTimeoutMs: number;
  /** How long the widget's counts wait in memory before they are added to the database. */
  statsFlushMs: number;
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

const text = (env: Env, name: string) =>
  env[name] === undefined || env[name] === "" ? undefined : env[name];

export function loadWidgetConfig(env: Env): WidgetConfig {
  const secret = text(env, "WIDGET_TOKEN_SECRET");
  if (secret !== undefined && secret.length < 32)
    throw new ConfigError("WIDGET_TOKEN_SECRET must be at least 32 characters");
  return {
    deadlineMs: int(env, "WIDGET_DEADLINE_MS", 3000, 100, 10_000),
    tokenSecret: secret ?? randomBytes(32).toString("hex"),
    tokenSecretConfigured: secret !== undefined,
    tokenTtlMs: int(env, "WIDGET_TOKEN_TTL_MS", 15 * 60_000, 1000, 24 * 3600_000),
    recentResultTtlMs: int(env, "WIDGET_RECENT_RESULT_TTL_MS", 3600_000, 0),
    defaults: {
      dailyCap: int(env, "WIDGET_DAILY_CAP", 10_000, 1),
      perIpPerMinute: int(env, "WIDGET_PER_IP_PER_MINUTE", 30, 1),
      perEmailPerMinute: int(env, "WIDGET_PER_EMAIL_PER_MINUTE", 10, 1),
      distinctEmailsPerIpPerDay: int(env, "WIDGET_DISTINCT_EMAILS_PER_IP_PER_DAY", 20, 1),
    },
    turnstile: {
      verifyUrl:
        text(env, "CAPTCHA_TURNSTILE_VERIFY_URL") ??
        "https://challenges.cloudflare.com/turnstile/v0/siteverify",
      secret: text(env, "CAPTCHA_TURNSTILE_SECRET"),
    },
    hcaptcha: {
      verifyUrl: text(env, "CAPTCHA_HCAPTCHA_VERIFY_URL") ?? "https://api.hcaptcha.com/siteverify",
      secret: text(env, "CAPTCHA_HCAPTCHA_SECRET"),
    },
    captchaTimeoutMs: int(env, "CAPTCHA_TIMEOUT_MS", 3000, 100, 30_000),
    statsFlushMs: int(env, "WIDGET_STATS_FLUSH_MS", 5000, 100, 60_000),
  };
}
