// The embedded runner's storage: the `jobs` table. Claims are one UPDATE ... RETURNING, atomic
// under SQLite's single writer; every later write for an attempt is guarded by its lease token so
// a late answer from an expired attempt cannot touch a newer one.
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { type Clock, iso } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import type { Db } from "../storage/db.js";
import type { JobsTable } from "../storage/schema.js";
import {
  DEAD_LETTER_POLICY,
  type JobData,
  type JobPolicy,
  type JobRecord,
  type QueueStats,
} from "./job-queue.js";
import type { ClaimedJob, FailureInfo, InsertJob, JobStore } from "./job-store.js";
import { retryDelayMs } from "./retry-delay.js";

export interface SqliteJobStoreOptions {
  clock: Clock;
  random: () => number;
  completedRetentionMs: number;
  failedRetentionMs: number;
  /** The policy of dead-letter jobs (the failure hooks); DEAD_LETTER_POLICY unless a test of
   *  their expiry shortens it. */
  deadLetterPolicy?: JobPolicy;
}

const LEASE_EXPIRED = "the job's lease expired: its worker stopped responding or its process died";

export class SqliteJobStore implements JobStore {
  readonly #db: Db;
  readonly #options: SqliteJobStoreOptions;

  constructor(db: Db, options: SqliteJobStoreOptions) {
    this.#db = db;
    this.#options = options;
  }

  async start(): Promise<void> {}

  /** The policy and dead-letter queue travel with each job row; nothing to store per queue. */
  async define(_name: string, _policy: JobPolicy, _deadLetter: string | null): Promise<void> {}

  async insert(job: InsertJob): Promise<string | null> {
    const now = this.#options.clock.now();
    const id = newId("job", now.getTime());
    const row = await (job.trx ?? this.#db)
      .insertInto("jobs")
      .values({
        id,
        name: job.name,
        data: JSON.stringify(job.data),
        state: "created",
        singleton_key: job.singletonKey,
        retry_limit: job.policy.retryLimit,
        retry_count: 0,
        retry_delay_ms: job.policy.retryDelayMs,
        retry_backoff: job.policy.retryBackoff ? 1 : 0,
        expire_in_ms: job.policy.expireInMs,
        start_after: iso(new Date(now.getTime() + Math.max(0, job.startAfterMs))),
        created_at: iso(now),
        dead_letter: job.deadLetter,
      })
      // Only the partial unique index on (name, singleton_key) of created jobs can conflict.
      .onConflict((oc) => oc.doNothing())
      .returning("id")
      .executeTakeFirst();
    return row?.id ?? null;
  }

  async claim(name: string, limit: number): Promise<ClaimedJob[]> {
    const now = iso(this.#options.clock.now());
    const token = randomUUID();
    const { rows } = await sql<
      Pick<JobsTable, "id" | "name" | "data" | "retry_count" | "expire_in_ms" | "output">
    >`
      UPDATE jobs SET
        state = 'active',
        started_at = ${now},
        lease_token = ${token},
        locked_until = strftime('%Y-%m-%dT%H:%M:%fZ', ${now}, '+' || (expire_in_ms / 1000.0) || ' seconds')
      WHERE id IN (
        SELECT id FROM jobs
        WHERE name = ${name} AND state IN ('created', 'retry') AND start_after <= ${now}
        ORDER BY id
        LIMIT ${limit}
      )
      RETURNING id, name, data, retry_count, expire_in_ms, output`.execute(this.#db);
    return rows
      .map((r) => ({
        id: r.id,
        name: r.name,
        data: JSON.parse(r.data) as JobData,
        retryCount: r.retry_count,
        expireInMs: r.expire_in_ms,
        lease: token,
        cause: r.output ? (JSON.parse(r.output) as FailureInfo).message : null,
      }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async complete(job: ClaimedJob): Promise<void> {
    await this.#db
      .updateTable("jobs")
      .set({
        state: "completed",
        completed_at: iso(this.#options.clock.now()),
        locked_until: null,
        lease_token: null,
      })
      .where("id", "=", job.id)
      .where("lease_token", "=", job.lease)
      .where("state", "=", "active")
      .execute();
  }

  async fail(job: Pick<ClaimedJob, "id" | "lease">, failure: FailureInfo): Promise<void> {
    // One transaction: a job failed for good and its dead-letter copy exist together or not at all.
    await this.#db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom("jobs")
        .select([
          "name",
          "data",
          "retry_count",
          "retry_limit",
          "retry_delay_ms",
          "retry_backoff",
          "dead_letter",
        ])
        .where("id", "=", job.id)
        .where("lease_token", "=", job.lease)
        .where("state", "=", "active")
        .executeTakeFirst();
      if (!row) return;
      const now = this.#options.clock.now();
      const isRetrying = row.retry_count < row.retry_limit;
      const delayMs = isRetrying
        ? retryDelayMs(
            { retryDelayMs: row.retry_delay_ms, retryBackoff: row.retry_backoff === 1 },
            row.retry_count + 1,
            this.#options.random,
          )
        : 0;
      await trx
        .updateTable("jobs")
        .set({
          state: isRetrying ? "retry" : "failed",
          retry_count: isRetrying ? row.retry_count + 1 : row.retry_count,
          start_after: iso(new Date(now.getTime() + delayMs)),
          completed_at: isRetrying ? null : iso(now),
          locked_until: null,
          lease_token: null,
          last_error: JSON.stringify(failure),
        })
        .where("id", "=", job.id)
        .where("lease_token", "=", job.lease)
        .execute();
      if (isRetrying || !row.dead_letter) return;
      const deadLetterPolicy = this.#options.deadLetterPolicy ?? DEAD_LETTER_POLICY;
      await trx
        .insertInto("jobs")
        .values({
          id: newId("job", now.getTime()),
          name: row.dead_letter,
          data: row.data,
          state: "created",
          singleton_key: null,
          retry_limit: deadLetterPolicy.retryLimit,
          retry_count: 0,
          retry_delay_ms: deadLetterPolicy.retryDelayMs,
          retry_backoff: deadLetterPolicy.retryBackoff ? 1 : 0,
          expire_in_ms: deadLetterPolicy.expireInMs,
          start_after: iso(now),
          created_at: iso(now),
          dead_letter: null,
          output: JSON.stringify(failure),
        })
        .execute();
    });
  }

  async release(jobs: ClaimedJob[]): Promise<void> {
    const now = iso(this.#options.clock.now());
    for (const job of jobs) {
      await this.#db
        .updateTable("jobs")
        .set({ state: "retry", start_after: now, started_at: null, locked_until: null, lease_token: null })
        .where("id", "=", job.id)
        .where("lease_token", "=", job.lease)
        .where("state", "=", "active")
        .execute();
    }
  }

  async maintain(): Promise<void> {
    const now = this.#options.clock.now();
    const expired = await this.#db
      .selectFrom("jobs")
      .select(["id", "lease_token"])
      .where("state", "=", "active")
      .where("locked_until", "<", iso(now))
      .execute();
    for (const job of expired) {
      if (job.lease_token)
        await this.fail({ id: job.id, lease: job.lease_token }, { message: LEASE_EXPIRED });
    }
    const completedBefore = iso(new Date(now.getTime() - this.#options.completedRetentionMs));
    const failedBefore = iso(new Date(now.getTime() - this.#options.failedRetentionMs));
    await this.#db
      .deleteFrom("jobs")
      .where((eb) =>
        eb.or([
          eb.and([eb("state", "=", "completed"), eb("completed_at", "<", completedBefore)]),
          eb.and([eb("state", "=", "failed"), eb("completed_at", "<", failedBefore)]),
        ]),
      )
      .execute();
  }

  async stats(name?: string): Promise<QueueStats> {
    const now = this.#options.clock.now();
    let query = this.#db
      .selectFrom("jobs")
      .select((eb) => [
        eb.fn.countAll<number>().filterWhere("state", "in", ["created", "retry"]).as("queued"),
        eb.fn.countAll<number>().filterWhere("state", "=", "active").as("active"),
        eb.fn
          .min<string | null>("start_after")
          .filterWhere((w) =>
            w.and([w("state", "in", ["created", "retry"]), w("start_after", "<=", iso(now))]),
          )
          .as("oldest"),
      ])
      .where("state", "in", ["created", "retry", "active"]);
    if (name !== undefined) query = query.where("name", "=", name);
    const row = await query.executeTakeFirstOrThrow();
    return {
      queued: Number(row.queued),
      active: Number(row.active),
      oldestQueuedAgeMs: row.oldest ? Math.max(0, now.getTime() - Date.parse(row.oldest)) : null,
    };
  }

  async get(name: string, id: string): Promise<JobRecord | null> {
    const row = await this.#db
      .selectFrom("jobs")
      .selectAll()
      .where("id", "=", id)
      .where("name", "=", name)
      .executeTakeFirst();
    if (!row) return null;
    return {
      id: row.id,
      name: row.name,
      state: row.state,
      data: JSON.parse(row.data) as JobData,
      retryCount: row.retry_count,
      lastError: row.last_error ? (JSON.parse(row.last_error) as FailureInfo).message : null,
    };
  }

  async ping(): Promise<boolean> {
    try {
      await sql`SELECT 1`.execute(this.#db);
      return true;
    } catch {
      return false;
    }
  }

  /** The database belongs to the caller. */
  async close(): Promise<void> {}
}
