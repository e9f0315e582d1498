// The PostgreSQL runner's storage: pg-boss 10 (own small pool, schema `pgboss`). pg-boss keeps
// the jobs, claims them with SKIP LOCKED, schedules retries with its backoff, expires attempts
// whose worker died (its maintenance loop) and archives finished jobs. We drive it through
// fetch/complete/fail instead of `work()`, because `work()` fails jobs that are still running
// at stop (using up a retry, or failing a job with no retries for good) where we hand them back,
// and adds one polling loop per unit of concurrency. Dead-letter queues are claimed with our own
// statement, which gives their jobs the dead-letter policy (#claimDeadLetters).
import { createHash, randomUUID } from "node:crypto";
import { CompiledQuery, type Transaction } from "kysely";
import type pg from "pg";
import PgBoss from "pg-boss";
import type { Schema } from "../storage/schema.js";
import {
  DEAD_LETTER_POLICY,
  type JobData,
  type JobPolicy,
  type JobRecord,
  type JobState,
  type QueueStats,
} from "./job-queue.js";
import type { ClaimedJob, FailureInfo, InsertJob, JobStore } from "./job-store.js";

export interface PgBossJobStoreOptions {
  connectionString: string;
  schema: string;
  maxConnections: number;
  maintenanceIntervalMs: number;
  completedRetentionMs: number;
  failedRetentionMs: number;
  onError: (error: unknown) => void;
  /**
   * The process's own pool on the same database: one of its connections holds the queue set-up
   * lock while pg-boss, on its own pool, creates the queue (see #whileSettingUp).
   */
  lockPool: pg.Pool;
  /** The policy of dead-letter jobs (the failure hooks); DEAD_LETTER_POLICY unless a test of
   *  their expiry shortens it. */
  deadLetterPolicy?: JobPolicy;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Where a dead-letter job keeps the failure that ended the original job (see #claimDeadLetters). */
const CAUSE_KEY = "__deadLetterCause";
/** Archived (finished) jobs are deleted this long after archiving. */
const ARCHIVE_KEEP_SECONDS = 60 * 60;

const seconds = (ms: number) => Math.ceil(ms / 1000);

/** The advisory lock key that queue creation in `schema` takes, the same in every process. */
export function queueSetupLockKey(schema: string): bigint {
  return createHash("sha256").update(`leadcheck.pgboss.create-queue.${schema}`).digest().readBigInt64BE(0);
}

export class PgBossJobStore implements JobStore {
  #boss: PgBoss;
  readonly #schema: string;
  readonly #options: PgBossJobStoreOptions;
  readonly #setupLockKey: string;
  /** The dead-letter queues defined through this store: claimed by #claimDeadLetters. */
  readonly #deadLetterQueues = new Set<string>();

  constructor(options: PgBossJobStoreOptions) {
    this.#schema = options.schema;
    this.#options = options;
    this.#setupLockKey = queueSetupLockKey(options.schema).toString();
    this.#boss = this.#createBoss();
  }

  async start(): Promise<void> {
    try {
      await this.#boss.start();
    } catch (error) {
      // pg-boss marks itself "starting" for good after a failed start; the next try needs a new one.
      this.#boss = this.#createBoss();
      throw error;
    }
  }

  #createBoss(): PgBoss {
    const options = this.#options;
    const boss = new PgBoss({
      connectionString: options.connectionString,
      schema: options.schema,
      max: options.maxConnections,
      application_name: "leadcheck-jobs",
      migrate: true,
      supervise: true,
      schedule: false,
      maintenanceIntervalSeconds: Math.max(1, seconds(options.maintenanceIntervalMs)),
      archiveCompletedAfterSeconds: Math.max(1, seconds(options.completedRetentionMs)),
      archiveFailedAfterSeconds: Math.max(1, seconds(options.failedRetentionMs)),
      deleteAfterSeconds: ARCHIVE_KEEP_SECONDS,
    });
    // An EventEmitter without an error listener would throw and take the process down.
    boss.on("error", options.onError);
    return boss;
  }

  /** `short` policy: pg-boss then keeps at most one created job per singleton key. A dead-letter
   *  queue is `standard` (pg-boss copies failed jobs into it without a singleton key) and is
   *  defined first: the queue names it. pg-boss copies a job there whenever it fails for good,
   *  by fail() past its retries or by its maintenance expiring an attempt (expiry, dead worker). */
  async define(name: string, policy: JobPolicy, deadLetter: string | null): Promise<void> {
    if (deadLetter !== null) {
      await this.#defineQueue({
        name: deadLetter,
        policy: "standard",
        ...toPgBossPolicy(this.#options.deadLetterPolicy ?? DEAD_LETTER_POLICY),
      });
      this.#deadLetterQueues.add(deadLetter);
    }
    await this.#defineQueue({
      name,
      policy: "short",
      ...toPgBossPolicy(policy),
      ...(deadLetter !== null ? { deadLetter } : {}),
    });
  }

  async #defineQueue(queue: PgBoss.Queue & { name: string }): Promise<void> {
    const { name } = queue;
    // A restart finds its queues made and need not wait for the lock; a queue made between this
    // look and the lock is left alone by createQueue.
    if ((await this.#boss.getQueue(name)) === null) {
      await this.#whileSettingUp(() => this.#boss.createQueue(name, queue));
    }
    // createQueue leaves an existing queue alone; later deploys may have changed the policy.
    await this.#boss.updateQueue(name, queue);
  }

  /**
   * Runs `work` holding the queue set-up lock. Processes starting together create the same queues
   * at once, and two of pg-boss's create_queue (a partition table plus foreign keys) at once can
   * deadlock; in turns they cannot. The lock is a session lock on a connection of `lockPool`, not of pg-boss's
   * pool, which `work` needs: it never waits on its own lock, whatever PGBOSS_MAX_CONNECTIONS is.
   */
  async #whileSettingUp(work: () => Promise<void>): Promise<void> {
    const client = await this.#options.lockPool.connect();
    let unlocked = false;
    try {
      await client.query("SELECT pg_advisory_lock($1::bigint)", [this.#setupLockKey]);
      try {
        await work();
      } finally {
        unlocked = await client.query("SELECT pg_advisory_unlock($1::bigint)", [this.#setupLockKey]).then(
          () => true,
          () => false,
        );
      }
    } finally {
      // Closing the session lets go of a lock it may still hold; a pooled one would keep it.
      client.release(!unlocked);
    }
  }

  async insert(job: InsertJob): Promise<string | null> {
    const id = randomUUID();
    return this.#boss.send(job.name, job.data, {
      id,
      ...toPgBossPolicy(job.policy),
      // Under the `short` policy every created job needs a key of its own unless it shares one.
      singletonKey: job.singletonKey === null ? `id:${id}` : `key:${job.singletonKey}`,
      ...(job.startAfterMs > 0 ? { startAfter: new Date(Date.now() + job.startAfterMs) } : {}),
      ...(job.trx ? { db: transactionDb(job.trx) } : {}),
    });
  }

  async claim(name: string, limit: number): Promise<ClaimedJob[]> {
    if (this.#deadLetterQueues.has(name)) return this.#claimDeadLetters(name, limit);
    const jobs = await this.#boss.fetch<JobData>(name, { batchSize: limit, includeMetadata: true });
    return jobs.map((j) => ({
      id: j.id,
      name: j.name,
      data: j.data,
      retryCount: j.retryCount,
      expireInMs: Number(j.expireInSeconds) * 1000,
      lease: j.id,
      cause: failureMessage(j.output),
    }));
  }

  /**
   * pg-boss copies a failed job into its dead-letter queue with the job table's defaults, not the
   * dead-letter queue's policy: a 15-minute expiry, and the original job's retry limit with no
   * delay. So a hook lost with its worker would wait 15 minutes. This claim (pg-boss 10's fetch
   * for a standard queue, in one statement) sets DEAD_LETTER_POLICY on the rows it takes: their
   * maintenance expiry, retries and backoff are then the hook's. It also keeps the failure that
   * ended the original job: pg-boss overwrites `output` with every failed attempt of the hook
   * (its expiry writes "job failed by timeout"), so the first claim copies it into the data.
   */
  async #claimDeadLetters(name: string, limit: number): Promise<ClaimedJob[]> {
    const policy = toPgBossPolicy(this.#options.deadLetterPolicy ?? DEAD_LETTER_POLICY);
    const rows = await this.#sql(
      `WITH next AS (
         SELECT id FROM ${this.#schema}.job
         WHERE name = $1 AND state < 'active' AND start_after < now()
         ORDER BY priority DESC, created_on, id
         LIMIT $2
         FOR UPDATE SKIP LOCKED
       )
       UPDATE ${this.#schema}.job j SET
         state = 'active',
         started_on = now(),
         retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END,
         retry_limit = $3,
         retry_delay = $4,
         retry_backoff = $5,
         expire_in = make_interval(secs => $6::int),
         data = CASE WHEN j.data ? '${CAUSE_KEY}' THEN j.data
                ELSE coalesce(j.data, '{}'::jsonb) || jsonb_build_object('${CAUSE_KEY}', j.output) END
       FROM next
       WHERE j.name = $1 AND j.id = next.id
       RETURNING j.id, j.name, j.data, j.retry_count, $6::int AS expire_seconds`,
      [name, limit, policy.retryLimit, policy.retryDelay, policy.retryBackoff, policy.expireInSeconds],
    );
    return rows.map((row) => {
      const { data, cause } = splitCause(row.data as JobData);
      return {
        id: String(row.id),
        name: String(row.name),
        data,
        retryCount: Number(row.retry_count),
        expireInMs: Number(row.expire_seconds) * 1000,
        lease: String(row.id),
        cause: failureMessage(cause),
      };
    });
  }

  async complete(job: ClaimedJob): Promise<void> {
    await this.#boss.complete(job.name, job.id);
  }

  async fail(job: ClaimedJob, failure: FailureInfo): Promise<void> {
    await this.#boss.fail(job.name, job.id, { ...failure });
  }

  /** Back to `retry` with started_on cleared: pg-boss then does not count the attempt. */
  async release(jobs: ClaimedJob[]): Promise<void> {
    for (const name of new Set(jobs.map((j) => j.name))) {
      await this.#sql(
        `UPDATE ${this.#schema}.job SET state = 'retry', started_on = NULL, start_after = now()
         WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active'`,
        [name, jobs.filter((j) => j.name === name).map((j) => j.id)],
      );
    }
  }

  /** pg-boss's own maintenance loop expires, retries and archives. */
  async maintain(): Promise<void> {}

  async stats(name?: string): Promise<QueueStats> {
    const rows = await this.#sql(
      `SELECT
         count(*) FILTER (WHERE state < 'active') AS queued,
         count(*) FILTER (WHERE state = 'active') AS active,
         (extract(epoch FROM now() - min(start_after) FILTER (WHERE state < 'active' AND start_after <= now()))
           * 1000)::float8 AS oldest_ms
       FROM ${this.#schema}.job
       WHERE state <= 'active' AND ($1::text IS NULL OR name = $1)`,
      [name ?? null],
    );
    const row = rows[0] as { queued: number | string; active: number | string; oldest_ms: number | null };
    return {
      queued: Number(row.queued),
      active: Number(row.active),
      oldestQueuedAgeMs: row.oldest_ms === null ? null : Math.max(0, Math.round(row.oldest_ms)),
    };
  }

  async get(name: string, id: string): Promise<JobRecord | null> {
    if (!UUID.test(id)) return null;
    const job = await this.#boss.getJobById<JobData>(name, id, { includeArchive: true });
    if (!job) return null;
    const output = job.output as { message?: unknown } | null;
    const isFailure = job.state === "failed" || job.state === "retry";
    return {
      id: job.id,
      name: job.name,
      state: job.state as JobState,
      data: splitCause(job.data).data,
      // pg-boss counts a failed attempt when the job is fetched again; report it as soon as it failed.
      retryCount: job.retryCount + (job.state === "retry" && job.startedOn ? 1 : 0),
      lastError: isFailure && typeof output?.message === "string" ? output.message : null,
    };
  }

  async ping(): Promise<boolean> {
    try {
      const rows = await this.#sql("SELECT 1 AS ok", []);
      return rows[0]?.ok === 1;
    } catch {
      return false;
    }
  }

  async #sql(text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
    const result = await this.#boss.getDb().executeSql(text, values);
    // pg-boss answers undefined instead of throwing while its pool is not open.
    if (!result) throw new Error("the pg-boss job store is not started");
    return result.rows;
  }

  async close(): Promise<void> {
    await this.#boss.stop({ graceful: false, close: true, wait: true });
  }
}

/** A dead-letter job's data, and the original failure its first claim kept in it. */
function splitCause(stored: JobData): { data: JobData; cause: unknown } {
  const { [CAUSE_KEY]: cause, ...data } = stored;
  return { data, cause };
}

/** The failure pg-boss stored: ours (`{ message }`) or its own expiry (`{ value: { message } }`). */
function failureMessage(output: unknown): string | null {
  if (typeof output !== "object" || output === null) return null;
  const own = output as { message?: unknown; value?: { message?: unknown } };
  if (typeof own.message === "string") return own.message;
  if (typeof own.value?.message === "string") return own.value.message;
  return null;
}

function toPgBossPolicy(policy: JobPolicy) {
  return {
    retryLimit: policy.retryLimit,
    retryDelay: seconds(policy.retryDelayMs),
    retryBackoff: policy.retryBackoff === true,
    expireInSeconds: Math.max(1, seconds(policy.expireInMs)),
  };
}

/** Runs pg-boss's SQL on a Kysely transaction so the job commits or rolls back with it. */
function transactionDb(trx: Transaction<Schema>): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      const result = await trx.executeQuery(CompiledQuery.raw(text, values));
      return { rows: result.rows as unknown[] };
    },
  };
}
