// Polls one queue and runs its handler with a concurrency limit. Shared by both runners: it
// claims through the JobStore, times attempts out at their expiry, and on stop hands running
// jobs back instead of failing them.
import type { JobHandler, StopOptions } from "./job-queue.js";
import type { ClaimedJob, FailureInfo, JobStore } from "./job-store.js";

export interface JobWorkerOptions {
  name: string;
  concurrency: number;
  pollIntervalMs: number;
  onError: (error: unknown) => void;
  /** Called after an attempt's failure is recorded (it may have been the last). */
  onFailed?: () => void;
}

interface Running {
  job: ClaimedJob;
  controller: AbortController;
  /** The handler has finished and its outcome is being written: not handed back any more. */
  isSettling: boolean;
  /** Handed back at stop: the outcome, whenever it comes, is dropped. */
  isAbandoned: boolean;
  done: Promise<void>;
}

export class JobWorker {
  readonly #store: JobStore;
  readonly #options: JobWorkerOptions;
  readonly #handler: JobHandler;
  readonly #running = new Map<string, Running>();
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #pollAgain = false;
  /** The last claim filled every free slot, so more jobs are probably waiting. */
  #isBacklogged = false;
  #isStopping = false;

  constructor(store: JobStore, options: JobWorkerOptions, handler: JobHandler) {
    this.#store = store;
    this.#options = options;
    this.#handler = handler;
  }

  get name(): string {
    return this.#options.name;
  }

  start(): void {
    this.wake();
  }

  /** Polls now (a job was just sent, or a slot freed up while jobs are waiting). */
  wake(): void {
    if (this.#isStopping) return;
    if (this.#polling) {
      this.#pollAgain = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#polling = this.#pollOnce()
      .catch(this.#options.onError)
      .finally(() => {
        this.#polling = undefined;
        this.#scheduleNext();
      });
  }

  async stop(options: StopOptions): Promise<void> {
    this.#isStopping = true;
    clearTimeout(this.#timer);
    await this.#polling;
    if (options.graceful && this.#running.size > 0) await this.#waitForRunning(options.timeoutMs);
    const leftovers = [...this.#running.values()].filter((r) => !r.isSettling);
    for (const r of leftovers) {
      r.isAbandoned = true;
      r.controller.abort(new Error("the job queue stopped"));
      this.#running.delete(r.job.id);
    }
    if (leftovers.length > 0) {
      await this.#store.release(leftovers.map((r) => r.job)).catch(this.#options.onError);
    }
    await Promise.allSettled([...this.#running.values()].map((r) => r.done));
  }

  #scheduleNext(): void {
    if (this.#isStopping) return;
    if (this.#pollAgain) {
      this.#pollAgain = false;
      this.wake();
      return;
    }
    // With every slot busy, a finishing job wakes the worker instead of a timer.
    if (this.#running.size >= this.#options.concurrency) return;
    this.#timer = setTimeout(() => this.wake(), this.#isBacklogged ? 0 : this.#options.pollIntervalMs);
    this.#timer.unref();
  }

  async #pollOnce(): Promise<void> {
    const free = this.#options.concurrency - this.#running.size;
    if (free <= 0) {
      this.#isBacklogged = true;
      return;
    }
    let jobs: ClaimedJob[];
    try {
      jobs = await this.#store.claim(this.#options.name, free);
    } catch (error) {
      this.#isBacklogged = false;
      this.#options.onError(error);
      return;
    }
    if (this.#isStopping) {
      if (jobs.length > 0) await this.#store.release(jobs).catch(this.#options.onError);
      return;
    }
    this.#isBacklogged = jobs.length === free;
    for (const job of jobs) this.#run(job);
  }

  #run(job: ClaimedJob): void {
    const controller = new AbortController();
    const running: Running = {
      job,
      controller,
      isSettling: false,
      isAbandoned: false,
      done: Promise.resolve(),
    };
    this.#running.set(job.id, running);
    running.done = this.#attempt(running).finally(() => {
      if (this.#running.get(job.id) === running) this.#running.delete(job.id);
      if (this.#isBacklogged) this.wake();
    });
  }

  async #attempt(running: Running): Promise<void> {
    const { job, controller } = running;
    const failure = await this.#runHandler(job, controller);
    if (running.isAbandoned) return;
    running.isSettling = true;
    try {
      if (failure) {
        await this.#store.fail(job, failure);
        this.#options.onFailed?.();
      } else await this.#store.complete(job);
    } catch (error) {
      this.#options.onError(error);
    }
  }

  /** Resolves to the failure, or undefined when the handler succeeded. */
  async #runHandler(job: ClaimedJob, controller: AbortController): Promise<FailureInfo | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<FailureInfo>((resolve) => {
      timer = setTimeout(() => {
        const message = `job attempt exceeded its expiry of ${job.expireInMs} ms`;
        controller.abort(new Error(message));
        resolve({ message });
      }, job.expireInMs);
      timer.unref();
    });
    const handled = (async () => {
      await this.#handler({
        id: job.id,
        name: job.name,
        data: job.data,
        retryCount: job.retryCount,
        expireInMs: job.expireInMs,
        signal: controller.signal,
        cause: job.cause,
      });
      return undefined;
    })().catch(toFailure);
    try {
      return await Promise.race([handled, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #waitForRunning(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    const allDone = Promise.allSettled([...this.#running.values()].map((r) => r.done)).then(() => {});
    await Promise.race([allDone, deadline]);
    clearTimeout(timer);
  }
}

function toFailure(error: unknown): FailureInfo {
  if (error instanceof Error)
    return { message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  return { message: String(error) };
}
