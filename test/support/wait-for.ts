// The one way tests wait for something that happens on its own time (a job, a delivery, a server
// coming up): poll a probe until it answers, or fail with what was awaited. Never a fixed sleep.
// It keeps real time even under node:test's mocked timers (test/support/mock-clock.ts): it holds
// the real setTimeout and measures with performance.now(), which MockTimers leaves alone.
const realSetTimeout = globalThis.setTimeout;

export interface WaitOptions {
  /** What is awaited, for the timeout's message. */
  what: string;
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Calls `probe` until it returns something other than `undefined` or `false`, and returns that.
 * A probe that throws has not answered yet (a server still starting); the last error is in the
 * timeout's message. `waitFor(probe, "what", 5000)` and `waitFor(probe, { what, timeoutMs })` alike.
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string | WaitOptions,
  timeout?: number,
  interval?: number,
): Promise<T> {
  const options = typeof what === "string" ? { what, timeoutMs: timeout, intervalMs: interval } : what;
  const { timeoutMs = 30_000, intervalMs = 25 } = options;
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (performance.now() > deadline) {
      const cause = lastError === undefined ? "" : ` (last error: ${String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}${cause}`);
    }
    await new Promise((resolve) => realSetTimeout(resolve, intervalMs));
  }
}

/** Awaits `promise` (a job's handler settling, a stop resolving), failing after `timeoutMs`. */
export async function within<T>(promise: Promise<T>, what: string, timeoutMs = 30_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = realSetTimeout(
      () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
