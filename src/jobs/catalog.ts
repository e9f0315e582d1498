// The job catalog: every kind of background job, its retry policy and its handler. Features add
// their entries here; `serve` (embedded worker) and `leadcheck worker` run them.
import type { JobData, JobHandler, JobPolicy } from "./job-queue.js";

export interface JobDefinition<T extends JobData = JobData> {
  name: string;
  policy: JobPolicy;
  /** Attempts of this job running at once in one process. */
  concurrency: number;
  handler: JobHandler<T>;
}
