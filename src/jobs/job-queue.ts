// The background job queue every later feature runs on (email retries, lead batches, webhook
// deliveries, purges). Two runners implement it: the embedded SQLite table and pg-boss.
import type { Transaction } from "kysely";
import type { Schema } from "../storage/schema.js";

export type JobData = Record<string, unknown>;

export interface JobPolicy {
  /** Retries after the first attempt; the job fails for good after retryLimit + 1 attempts. */
  retryLimit: number;
  retryDelayMs: number;
  /** Doubles the delay on every retry, with jitter (pg-boss's formula). */
  retryBackoff?: boolean;
  /** Longest an attempt may run: the handler is aborted and the attempt failed after it, and a job
   *  left active by a dead process is retried after it. pg-boss rounds it up to whole seconds. */
  expireInMs: number;
}

export interface SendOptions {
  startAfterMs?: number;
  /** While a job with this key waits for its first start, another send with the key returns null. */
  singletonKey?: string;
  retryLimit?: number;
  retryDelayMs?: number;
  /** Enqueue inside this transaction: the job exists only if the transaction commits. */
  trx?: Transaction<Schema>;
}

export interface WorkOptions {
  /** Most attempts of this queue running at once in this process. */
  concurrency: number;
  pollIntervalMs?: number;
  /** Runs once for every job of this queue that will never run again (see ExhaustedHandler).
   *  The queue must have been defined with `{ deadLetter: true }`. */
  onExhausted?: ExhaustedHandler;
}

export interface DefineOptions {
  /** Jobs that fail for good (retries spent, expired, lease expired) are copied into the queue's
   *  dead-letter queue, in the same transaction; `work(..., { onExhausted })` drains it. */
  deadLetter?: boolean;
}

/** A job that will never run again, and the failure that ended it. */
interface ExhaustedJob<T extends JobData = JobData> {
  name: string;
  data: T;
  error: string;
}

/**
 * Closes what a job left open (its batch, lead or validation job) once the job is given up. It
 * runs as a durable job of the dead-letter queue, so it is retried if it throws or its process
 * dies, and it must be idempotent. On both runners it runs for every final failure: retries
 * spent, an attempt past its expiry, and a lease that expired because the worker died.
 */
export type ExhaustedHandler<T extends JobData = JobData> = (job: ExhaustedJob<T>) => Promise<void>;

/** The dead-letter queue of `name`. */
export const deadLetterQueueOf = (name: string) => `${name}.dead`;

/** How a dead-letter queue's own jobs (the onExhausted hooks) retry. A hook is a few database
 *  writes, so its attempt expires soon: a hook lost with its worker runs again within about this
 *  expiry plus one maintenance interval, well before anyone finds the work stuck. */
export const DEAD_LETTER_POLICY: JobPolicy = {
  retryLimit: 8,
  retryDelayMs: 5000,
  retryBackoff: true,
  expireInMs: 30_000,
};

export interface Job<T extends JobData = JobData> {
  id: string;
  name: string;
  data: T;
  /** Failed attempts before this one. */
  retryCount: number;
  /** This attempt's expiry: a handler doing work in slices keeps well inside it. */
  expireInMs: number;
  /** Aborted when the attempt expires or the queue stops without waiting for it. */
  signal: AbortSignal;
  /** Dead-letter jobs: the failure that ended the original job. */
  cause: string | null;
}

export type JobHandler<T extends JobData = JobData> = (job: Job<T>) => Promise<void>;

export interface StopOptions {
  /** true: take no new jobs and wait up to timeoutMs for running ones. Either way, jobs still
   *  running at the end are handed back to the queue without using up a retry. */
  graceful: boolean;
  timeoutMs: number;
}

export interface QueueStats {
  /** Waiting jobs, including those scheduled for later and waiting for a retry. */
  queued: number;
  active: number;
  /** How long the longest-waiting due job has been runnable; null when none is due. */
  oldestQueuedAgeMs: number | null;
}

export type JobState = "created" | "retry" | "active" | "completed" | "failed";

export interface JobRecord {
  id: string;
  name: string;
  state: JobState;
  data: JobData;
  retryCount: number;
  /** Message of the last failure, if any. */
  lastError: string | null;
}

export interface JobQueue {
  /** Idempotent. pg-boss: creates or migrates its schema (safe with several processes). */
  start(): Promise<void>;
  define(name: string, policy: JobPolicy, options?: DefineOptions): Promise<void>;
  /** Returns the job id, or null when singletonKey de-duplicated it. */
  send<T extends JobData>(name: string, data: T, options?: SendOptions): Promise<string | null>;
  work<T extends JobData>(name: string, options: WorkOptions, handler: JobHandler<T>): Promise<void>;
  stop(options: StopOptions): Promise<void>;
  stats(name?: string): Promise<QueueStats>;
  getJob(name: string, id: string): Promise<JobRecord | null>;
  ping(): Promise<boolean>;
}

export class QueueNotDefinedError extends Error {
  constructor(readonly queue: string) {
    super(`job queue "${queue}" is not defined: call define() first`);
    this.name = "QueueNotDefinedError";
  }
}
