// Retry schedules of webhook endpoints (spec "Webhook" retry_config, "Delivery" retries): an
// immediate attempt, then one retry after each delay. Stored and shown in their effective form,
// one delay per retry, so what a user reads back is exactly what will happen.
import type { FieldError } from "../lib/errors.js";

export interface RetryConfig {
  max_retries: number;
  /** Milliseconds to wait before each retry; always max_retries long once normalized. */
  retry_delays: number[];
}

export const DEFAULT_RETRY_CONFIG: Readonly<RetryConfig> = Object.freeze({
  max_retries: 3,
  retry_delays: [1000, 5000, 15000],
});
export const MAX_RETRIES = 10;
export const MAX_RETRY_DELAY_MS = 3_600_000;

export type RetryConfigInput = Partial<RetryConfig> | undefined | null;

/**
 * The effective schedule for what a user sent: max_retries alone takes the default delays (the
 * last one repeated); delays alone set max_retries to their count; fewer delays than retries
 * repeat the last delay. More delays than retries is refused rather than silently cut.
 */
export function normalizeRetryConfig(
  input: RetryConfigInput,
): { ok: true; config: RetryConfig } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const given = input?.retry_delays;
  const maxRetries = input?.max_retries ?? given?.length ?? DEFAULT_RETRY_CONFIG.max_retries;
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_RETRIES) {
    errors.push(field("max_retries", `must be an integer from 0 to ${MAX_RETRIES}`, "range"));
  }
  (given ?? []).forEach((delay, i) => {
    if (!Number.isInteger(delay) || delay < 0 || delay > MAX_RETRY_DELAY_MS) {
      errors.push(
        field(`retry_delays.${i}`, `must be an integer from 0 to ${MAX_RETRY_DELAY_MS} ms`, "range"),
      );
    }
  });
  if (given && given.length > maxRetries) {
    errors.push(field("retry_delays", `must list at most max_retries (${maxRetries}) delays`, "maxItems"));
  }
  if (errors.length > 0) return { ok: false, errors };
  const base = given && given.length > 0 ? given : DEFAULT_RETRY_CONFIG.retry_delays;
  const delays = Array.from({ length: maxRetries }, (_, i) => base[i] ?? base[base.length - 1]!);
  return { ok: true, config: { max_retries: maxRetries, retry_delays: delays } };
}

/** Milliseconds to wait after failed attempt `attempt` (1-based), or null when it was the last. */
export function delayAfterAttempt(config: RetryConfig, attempt: number): number | null {
  if (attempt > config.max_retries) return null;
  return config.retry_delays[attempt - 1] ?? config.retry_delays[config.retry_delays.length - 1] ?? 0;
}

function field(name: string, message: string, type: string): FieldError {
  return { field: `retry_config.${name}`, message, type };
}
