// Bounded concurrency without a dependency: runs `fn` over `items` with at most `limit` in flight,
// keeping results in input order.
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      results[i] = await fn(items[i]!, i);
    }
  });
  await Promise.all(workers);
  return results;
}

/** `work`'s answer, or a rejection with the signal's reason as soon as it aborts. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export interface PacedRunOptions {
  /** How long the first request waits, so that others can join its run (0: at once). */
  delayMs?: number;
  /** Least time from one run's start to the next's (0: none). */
  minIntervalMs?: number;
  /** Where a failed run's error goes; the next request runs the task again. */
  onError: (error: unknown) => void;
  /** Milliseconds of a monotonic clock (performance.now by default; tests pass their own). */
  now?: () => number;
}

/**
 * A task that many callers ask for and that runs once for all of them (a hint to look at an outbox,
 * a catch-up over new rows): one run at a time, paced. A request made while a run waits to start
 * joins it; one made while a run is under way gets one more run afterwards, since that run may
 * have started before the request's data existed. Timers never keep the process alive.
 */
export class PacedRun {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #isWanted = false;
  #isClosed = false;
  #lastStart = Number.NEGATIVE_INFINITY;
  readonly #now: () => number;

  constructor(
    private readonly task: () => Promise<unknown>,
    private readonly options: PacedRunOptions,
  ) {
    this.#now = options.now ?? (() => performance.now());
  }

  request(): void {
    if (this.#isClosed || this.#timer) return;
    if (this.#running) {
      this.#isWanted = true;
      return;
    }
    const { delayMs = 0, minIntervalMs = 0 } = this.options;
    const wait = Math.max(delayMs, this.#lastStart + minIntervalMs - this.#now());
    if (wait <= 0) {
      this.#start();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#start();
    }, wait);
    this.#timer.unref();
  }

  /** Starts no more runs; resolves once the run under way, if any, has ended. */
  async close(): Promise<void> {
    this.#isClosed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #start(): void {
    this.#lastStart = this.#now();
    this.#isWanted = false;
    this.#running = (async () => {
      try {
        await this.task();
      } catch (error) {
        this.options.onError(error);
      } finally {
        this.#running = undefined;
        if (this.#isWanted) {
          this.#isWanted = false;
          this.request();
        }
      }
    })();
  }
}
