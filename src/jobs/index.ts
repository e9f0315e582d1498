export { createJobQueue, JOB_QUEUE_DEFAULTS, type JobQueueOptions } from "./create-job-queue.js";
export * from "./job-queue.js";
