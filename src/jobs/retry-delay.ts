// Delay before the next attempt, in milliseconds. With backoff it follows pg-boss's formula so
// both runners space retries alike: delay * 2^(n-1) * (1 + random) for the n-th retry, the
// exponent capped at 16.

export interface RetryDelayPolicy {
  retryDelayMs: number;
  retryBackoff: boolean;
}

/** `retryNumber` is 1 for the first retry. `random` returns a value in [0, 1). */
export function retryDelayMs(policy: RetryDelayPolicy, retryNumber: number, random: () => number): number {
  if (!policy.retryBackoff) return policy.retryDelayMs;
  const base = Math.max(policy.retryDelayMs, 1);
  const exponent = Math.min(16, Math.max(1, retryNumber)) - 1;
  return Math.round(base * 2 ** exponent * (1 + random()));
}
