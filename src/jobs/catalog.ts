// The job catalog: every kind of background job with its payload schema, retry policy,
// concurrency, handler and onExhausted hook. Features export their entries from a
// `<name>.jobs.ts`; `serve` (embedded worker) and `leadcheck worker` run them.
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
