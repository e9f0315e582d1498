// What a runner's storage must do. The polling worker (job-worker.ts) is shared, so claiming,
// concurrency, timeouts and shutdown behave the same on SQLite and on pg-boss.
import type { Transaction } from "kysely";
import type { Schema } from "../storage/schema.js";
import type { JobData, JobPolicy, JobRecord, QueueStats } from "./job-queue.js";

export interface ClaimedJob {
  id: string;
  name: string;
  data: JobData;
  retryCount: number;
  expireInMs: number;
  /** Identifies this attempt to complete/fail/release; opaque to the worker. */
  lease: string;
  /** Dead-letter jobs: the failure that ended the original job. */
  cause: string | null;
}

export interface InsertJob {
  name: string;
  data: JobData;
  policy: JobPolicy;
  startAfterMs: number;
  singletonKey: string | null;
  trx: Transaction<Schema> | undefined;
  /** The queue the job is copied to when it fails for good; null: none. */
  deadLetter: string | null;
}

export interface FailureInfo {
  message: string;
  stack?: string;
}

export interface JobStore {
  start(): Promise<void>;
  /** `deadLetter`: the queue this queue's final failures are copied to (defined first). */
  define(name: string, policy: JobPolicy, deadLetter: string | null): Promise<void>;
  insert(job: InsertJob): Promise<string | null>;
  /** Atomically marks up to `limit` due jobs active and returns them. */
  claim(name: string, limit: number): Promise<ClaimedJob[]>;
  complete(job: ClaimedJob): Promise<void>;
  /** Schedules a retry (with the policy's delay) or, past the retry limit, fails the job and
   *  copies it, with the failure, into its dead-letter queue if it has one (atomically). */
  fail(job: ClaimedJob, failure: FailureInfo): Promise<void>;
  /** Puts jobs back as due without counting the attempt (shutdown hand-back). */
  release(jobs: ClaimedJob[]): Promise<void>;
  /** Periodic housekeeping the runner itself must do (expired leases, as failed attempts that
   *  may end the job and dead-letter it; purging). */
  maintain(): Promise<void>;
  stats(name?: string): Promise<QueueStats>;
  get(name: string, id: string): Promise<JobRecord | null>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
