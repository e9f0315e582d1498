// The job catalog: every kind of background job with its payload schema, retry policy,
// concurrency, handler, onExhausted hook and, for a recurring job, its period. Each module
// defines its jobs in a `<module>.jobs.ts` and its factory returns them (`jobs`); the catalog is
// their concatenation (src/main.ts), and `serve` (embedded worker) and `leadcheck worker` run it.
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { ExhaustedHandler, JobData, JobHandler, JobPolicy } from "./job-queue.js";

export interface JobDefinition<T extends JobData = JobData> {
  name: string;
  /** The payload every job of this queue carries; a job whose data does not match fails. */
  schema: TSchema;
  policy: JobPolicy;
  /** Attempts of this job running at once in one process. */
  concurrency: number;
  handler: JobHandler<T>;
  /** Closes what the job leaves open once it will never run again (retries spent, expiry,
   *  lease expiry): the batch, lead or validation job reaches a terminal state. Idempotent. */
  onExhausted?: ExhaustedHandler<T>;
  /** A job that runs every `everyMs` (src/jobs/recurring.ts: one loop schedules them all). */
  recurring?: Recurrence;
}

/** The queue has no cron: a recurring job's run queues the next one, `everyMs` later, under one
 *  singleton key, whether it succeeded or was given up. */
interface Recurrence {
  everyMs: number;
  /** The payload of the recurring runs (default `{}`); runs of the queue with other data (the
   *  webhook dispatcher's hints) do not queue a next one. */
  data?: JobData;
  /** When the first run starts after the queue starts (default: `everyMs`). */
  firstAfterMs?: number;
}

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** The services of all `modules` in one object (the composition root hands it to the entry points). */
export function servicesOf<const T extends readonly Module<object>[]>(
  modules: T,
): Intersection<T[number]["services"]> {
  return Object.assign({}, ...modules.map((module) => module.services));
}

/** What a module's factory (`create<Module>(deps)`) hands the composition root (src/main.ts). */
export interface Module<S> {
  services: S;
  /** The module's entries of the job catalog. */
  jobs: JobDefinition[];
  /** Releases what the module holds open (timers, sockets, subscriptions). */
  close?: () => void | Promise<void>;
}

/** A definition with the payload checked against its schema before the handler or hook sees it. */
export function defineJob<T extends JobData>(definition: JobDefinition<T>): JobDefinition {
  const check = (data: JobData): T => {
    if (Value.Check(definition.schema, data)) return data as T;
    const [first] = Value.Errors(definition.schema, data);
    throw new Error(
      `job ${definition.name}: bad payload at ${first?.path || "/"}: ${first?.message ?? "invalid"}`,
    );
  };
  const { onExhausted } = definition;
  return {
    ...definition,
    handler: (job) => definition.handler({ ...job, data: check(job.data) }),
    ...(onExhausted ? { onExhausted: (job) => onExhausted({ ...job, data: check(job.data) }) } : {}),
  } as JobDefinition;
}

/** JOB_EXPIRY_MS: an operator (or a test) shortens how long a dead worker's job stays claimed. */
export function withExpiryOverrides(
  overrides: Record<string, number>,
  catalog: readonly JobDefinition[],
): JobDefinition[] {
  return catalog.map((job) => {
    const expireInMs = overrides[job.name];
    return expireInMs === undefined ? job : { ...job, policy: { ...job.policy, expireInMs } };
  });
}
