// Picks the runner from the database: the embedded jobs table on SQLite, pg-boss on PostgreSQL.
import { type Clock, systemClock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import type { JobPolicy, JobQueue } from "./job-queue.js";
import { PgBossJobStore } from "./pg-boss-job-store.js";
import { PollingJobQueue } from "./polling-job-queue.js";
import { SqliteJobStore } from "./sqlite-job-store.js";

export interface JobQueueOptions {
  /** Poll interval of workers that do not set their own. */
  pollIntervalMs?: number;
  /** Expired leases (SQLite) and pg-boss maintenance; pg-boss rounds up to whole seconds. */
  maintenanceIntervalMs?: number;
  completedRetentionMs?: number;
  failedRetentionMs?: number;
  onError?: (error: unknown) => void;
  clock?: Clock;
  random?: () => number;
  /** The policy of dead-letter jobs (the failure hooks); DEAD_LETTER_POLICY unless a test of
   *  their expiry shortens it. */
  deadLetterPolicy?: JobPolicy;
  pgBoss?: {
    /** Defaults to the connection string of the database's own pool. */
    connectionString?: string;
    schema?: string;
    maxConnections?: number;
  };
}

export const JOB_QUEUE_DEFAULTS = {
  pollIntervalMs: 1000,
  maintenanceIntervalMs: 30_000,
  completedRetentionMs: 24 * 60 * 60 * 1000,
  failedRetentionMs: 7 * 24 * 60 * 60 * 1000,
  pgBossSchema: "pgboss",
  pgBossMaxConnections: 4,
} as const;

export function createJobQueue(database: Database, options: JobQueueOptions = {}): JobQueue {
  const onError = options.onError ?? ((error: unknown) => console.error("job queue error", error));
  const maintenanceIntervalMs = options.maintenanceIntervalMs ?? JOB_QUEUE_DEFAULTS.maintenanceIntervalMs;
  const completedRetentionMs = options.completedRetentionMs ?? JOB_QUEUE_DEFAULTS.completedRetentionMs;
  const failedRetentionMs = options.failedRetentionMs ?? JOB_QUEUE_DEFAULTS.failedRetentionMs;
  const store =
    database.kind === "sqlite"
      ? new SqliteJobStore(database.db, {
          clock: options.clock ?? systemClock,
          random: options.random ?? Math.random,
          completedRetentionMs,
          failedRetentionMs,
          deadLetterPolicy: options.deadLetterPolicy,
        })
      : new PgBossJobStore({
          connectionString: pgConnectionString(database, options),
          schema: options.pgBoss?.schema ?? JOB_QUEUE_DEFAULTS.pgBossSchema,
          maxConnections: options.pgBoss?.maxConnections ?? JOB_QUEUE_DEFAULTS.pgBossMaxConnections,
          maintenanceIntervalMs,
          completedRetentionMs,
          failedRetentionMs,
          onError,
          lockPool: pgPoolOf(database),
          deadLetterPolicy: options.deadLetterPolicy,
        });
  return new PollingJobQueue(store, {
    defaultPollIntervalMs: options.pollIntervalMs ?? JOB_QUEUE_DEFAULTS.pollIntervalMs,
    maintenanceIntervalMs,
    onError,
    deadLetterPolicy: options.deadLetterPolicy,
  });
}

function pgConnectionString(database: Database, options: JobQueueOptions): string {
  const url = options.pgBoss?.connectionString ?? database.pgPool?.options.connectionString;
  if (!url) throw new Error("the pg-boss runner needs a PostgreSQL connection string");
  return url;
}

function pgPoolOf(database: Database) {
  if (!database.pgPool) throw new Error("the pg-boss runner needs the database's PostgreSQL pool");
  return database.pgPool;
}
