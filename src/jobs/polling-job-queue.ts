// The JobQueue both runners share: policies, sending, workers and housekeeping over a JobStore.

import { afterCommitOf } from "../storage/transaction.js";
import {
  DEAD_LETTER_POLICY,
  type DefineOptions,
  deadLetterQueueOf,
  type ExhaustedHandler,
  type JobData,
  type JobHandler,
  type JobPolicy,
  type JobQueue,
  type JobRecord,
  QueueNotDefinedError,
  type QueueStats,
  type SendOptions,
  type StopOptions,
  type WorkOptions,
} from "./job-queue.js";
import type { JobStore } from "./job-store.js";
import { JobWorker } from "./job-worker.js";

/** How often a dead-letter queue is polled at least. Its jobs are rare, and a failure in this
 *  process or a maintenance pass that may have dead-lettered one wakes its worker at once, so the
 *  timer only catches what other processes dead-lettered: not worth a claim per poll interval. */
const DEAD_LETTER_POLL_INTERVAL_MS = 2000;

export interface PollingJobQueueOptions {
  defaultPollIntervalMs: number;
  /** How often this process runs the store's housekeeping (expired leases, purging). */
  maintenanceIntervalMs: number;
  onError: (error: unknown) => void;
  /** The policy of dead-letter jobs (the failure hooks); DEAD_LETTER_POLICY unless a test of
   *  their expiry shortens it. */
  deadLetterPolicy?: JobPolicy;
}

export class PollingJobQueue implements JobQueue {
  readonly #store: JobStore;
  readonly #options: PollingJobQueueOptions;
  readonly #policies = new Map<string, JobPolicy>();
  /** Queues defined with a dead-letter queue, and its name. */
  readonly #deadLetters = new Map<string, string>();
  readonly #workers: JobWorker[] = [];
  #started: Promise<void> | undefined;
  #maintenanceTimer: NodeJS.Timeout | undefined;
  #maintaining: Promise<void> | undefined;
  #isStopped = false;

  constructor(store: JobStore, options: PollingJobQueueOptions) {
    this.#store = store;
    this.#options = options;
  }

  start(): Promise<void> {
    if (this.#isStopped) return Promise.reject(new Error("the job queue was stopped; create a new one"));
    this.#started ??= this.#store.start().then(
      () => {
        this.#maintenanceTimer = setInterval(() => this.#maintain(), this.#options.maintenanceIntervalMs);
        this.#maintenanceTimer.unref();
      },
      (error: unknown) => {
        // Let a later start() try again (the database may come back).
        this.#started = undefined;
        throw error;
      },
    );
    return this.#started;
  }

  async define(name: string, policy: JobPolicy, options: DefineOptions = {}): Promise<void> {
    assertPolicy(name, policy);
    await this.start();
    const deadLetter = options.deadLetter ? deadLetterQueueOf(name) : null;
    await this.#store.define(name, policy, deadLetter);
    this.#policies.set(name, { ...policy });
    if (deadLetter === null) return;
    this.#policies.set(deadLetter, { ...(this.#options.deadLetterPolicy ?? DEAD_LETTER_POLICY) });
    this.#deadLetters.set(name, deadLetter);
  }

  async send<T extends JobData>(name: string, data: T, options: SendOptions = {}): Promise<string | null> {
    const policy = this.#policyOf(name);
    const merged: JobPolicy = {
      ...policy,
      ...(options.retryLimit !== undefined ? { retryLimit: options.retryLimit } : {}),
      ...(options.retryDelayMs !== undefined ? { retryDelayMs: options.retryDelayMs } : {}),
    };
    assertPolicy(name, merged);
    const startAfterMs = options.startAfterMs ?? 0;
    const id = await this.#store.insert({
      name,
      data,
      policy: merged,
      startAfterMs,
      singletonKey: options.singletonKey ?? null,
      trx: options.trx,
      deadLetter: this.#deadLetters.get(name) ?? null,
    });
    // A job in a transaction is visible once it commits: wake the workers then (afterCommit).
    if (id && startAfterMs <= 0) {
      const wake = () => {
        for (const worker of this.#workers) if (worker.name === name) worker.wake();
      };
      if (options.trx) afterCommitOf(options.trx)?.(wake);
      else wake();
    }
    return id;
  }

  async work<T extends JobData>(name: string, options: WorkOptions, handler: JobHandler<T>): Promise<void> {
    this.#policyOf(name);
    if (this.#isStopped) throw new Error("the job queue was stopped; create a new one");
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(`concurrency of "${name}" must be an integer >= 1`);
    }
    const worker = new JobWorker(
      this.#store,
      {
        name,
        concurrency: options.concurrency,
        pollIntervalMs: options.pollIntervalMs ?? this.#options.defaultPollIntervalMs,
        onError: this.#options.onError,
        onFailed: () => this.#wakeDeadLetters(name),
      },
      handler as JobHandler,
    );
    this.#workers.push(worker);
    worker.start();
    if (options.onExhausted) await this.#workDeadLetters(name, options.onExhausted);
  }

  /** Drains `name`'s dead-letter queue into its onExhausted hook, one hook at a time per process
   *  (they are rare, and each closes work in the database). */
  async #workDeadLetters(name: string, onExhausted: ExhaustedHandler): Promise<void> {
    const deadLetter = this.#deadLetters.get(name);
    if (!deadLetter)
      throw new Error(
        `queue "${name}" has an onExhausted hook but no dead-letter queue: define it with { deadLetter: true }`,
      );
    const pollIntervalMs = Math.max(this.#options.defaultPollIntervalMs, DEAD_LETTER_POLL_INTERVAL_MS);
    await this.work(deadLetter, { concurrency: 2, pollIntervalMs }, (job) =>
      onExhausted({ name, data: job.data, error: job.cause ?? "the job failed for good" }),
    );
  }

  async stop(options: StopOptions): Promise<void> {
    if (this.#isStopped) return;
    this.#isStopped = true;
    clearInterval(this.#maintenanceTimer);
    await Promise.all(this.#workers.map((w) => w.stop(options)));
    await this.#maintaining;
    if (this.#started) await this.#store.close();
  }

  stats(name?: string): Promise<QueueStats> {
    return this.#store.stats(name);
  }

  getJob(name: string, id: string): Promise<JobRecord | null> {
    return this.#store.get(name, id);
  }

  ping(): Promise<boolean> {
    return this.#store.ping();
  }

  /** A job of `name` failed (all queues when undefined: a maintenance pass may have failed any):
   *  if that was its last attempt it is in the dead-letter queue now, so look there at once. */
  #wakeDeadLetters(name?: string): void {
    if (name !== undefined && !this.#deadLetters.has(name)) return;
    const deadLetters = new Set(
      name === undefined ? this.#deadLetters.values() : [this.#deadLetters.get(name)],
    );
    for (const worker of this.#workers) if (deadLetters.has(worker.name)) worker.wake();
  }

  #policyOf(name: string): JobPolicy {
    const policy = this.#policies.get(name);
    if (!policy) throw new QueueNotDefinedError(name);
    return policy;
  }

  #maintain(): void {
    if (this.#maintaining || this.#isStopped) return;
    this.#maintaining = this.#store
      .maintain()
      .then(() => this.#wakeDeadLetters())
      .catch(this.#options.onError)
      .finally(() => {
        this.#maintaining = undefined;
      });
  }
}

function assertPolicy(name: string, policy: JobPolicy): void {
  const isCount = (n: number) => Number.isInteger(n) && n >= 0;
  if (!isCount(policy.retryLimit)) throw new RangeError(`retryLimit of "${name}" must be an integer >= 0`);
  if (!isCount(policy.retryDelayMs))
    throw new RangeError(`retryDelayMs of "${name}" must be an integer >= 0`);
  if (!Number.isInteger(policy.expireInMs) || policy.expireInMs < 1) {
    throw new RangeError(`expireInMs of "${name}" must be an integer >= 1`);
  }
}
