// Jittered exponential backoff for calls to Google and HubSpot after a 429 or 5xx ("full jitter":
// a uniform delay up to the exponential cap, so many workers that failed together do not retry
// together). A server's own wait (Retry-After, HubSpot's rolling interval) is a floor.
export interface BackoffSettings {
  retryLimit: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Randomness in [0, 1): injected so tests can seed it. */
  random?: () => number;
}

export function backoffDelayMs(attempt: number, settings: BackoffSettings, floorMs = 0): number {
  const cap = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** attempt);
  const jittered = Math.floor((settings.random ?? Math.random)() * cap);
  return Math.max(floorMs, jittered);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
