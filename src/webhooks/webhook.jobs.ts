// Job definitions of the webhooks module. Deliveries are one durable job per attempt (the next
// attempt is queued, with the endpoint's delay, in the transaction that records the failure).
// The dispatcher runs on a hint right after events are emitted and on a recurring sweep that
// catches anything a hint missed (an event committed after its hint ran, a crashed process).
// The sweep and the purge are `recurring` (src/jobs/recurring.ts schedules them).
import { type Static, Type } from "@sinclair/typebox";
import { defineJob, type JobDefinition } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import {
  type DeliverJobData,
  WEBHOOK_DELIVER_JOB,
  WEBHOOK_DISPATCH_JOB,
  WEBHOOK_PURGE_JOB,
  type WebhookDispatcher,
} from "./webhook-dispatcher.js";

const HINT_KEY = "webhooks.dispatch:hint";

export interface WebhookJobOptions {
  /** Whole budget of one delivery attempt; the job's expiry leaves room for its bookkeeping. */
  timeoutMs: number;
  deliveryConcurrency: number;
  dispatchIntervalMs: number;
  purgeIntervalMs: number;
}

const DELIVER_RETRY_LIMIT = 3;

const DispatchJobData = Type.Object({ trigger: Type.Union([Type.Literal("sweep"), Type.Literal("hint")]) });
type DispatchJobData = Static<typeof DispatchJobData>;
const DeliverJobSchema = Type.Object({ deliveryId: Type.String(), attempt: Type.Integer({ minimum: 1 }) });
const PurgeJobData = Type.Object({});

export function webhookJobDefinitions(
  dispatcher: WebhookDispatcher,
  options: WebhookJobOptions,
): JobDefinition[] {
  return [
    defineJob<DispatchJobData>({
      name: WEBHOOK_DISPATCH_JOB,
      schema: DispatchJobData,
      policy: { retryLimit: 3, retryDelayMs: 1000, retryBackoff: true, expireInMs: 120_000 },
      concurrency: 1,
      handler: async () => {
        await dispatcher.dispatchPending();
      },
      // The sweeps recur (a sweep given up still queues the next); hints run once.
      recurring: { everyMs: options.dispatchIntervalMs, data: { trigger: "sweep" }, firstAfterMs: 0 },
    }),
    defineJob<DeliverJobData>({
      name: WEBHOOK_DELIVER_JOB,
      schema: DeliverJobSchema,
      // These retries cover storage failures and crashed workers, not the receiver's answers:
      // those follow the endpoint's retry_config through new attempt jobs.
      policy: {
        retryLimit: DELIVER_RETRY_LIMIT,
        retryDelayMs: 5000,
        retryBackoff: true,
        expireInMs: options.timeoutMs + 60_000,
      },
      concurrency: options.deliveryConcurrency,
      handler: (job) => dispatcher.deliver(job.data.deliveryId, job.data.attempt),
      onExhausted: (job) => dispatcher.abandon(job.data.deliveryId, `delivery could not run: ${job.error}`),
    }),
    defineJob({
      name: WEBHOOK_PURGE_JOB,
      schema: PurgeJobData,
      policy: { retryLimit: 2, retryDelayMs: 60_000, expireInMs: 600_000 },
      concurrency: 1,
      handler: async () => {
        await dispatcher.purge();
      },
      recurring: { everyMs: options.purgeIntervalMs, firstAfterMs: 0 },
    }),
  ];
}

/** Asks for a dispatch now; while one is waiting, further hints are absorbed by the singleton key. */
export async function sendDispatchHint(queue: JobQueue): Promise<void> {
  await queue.send(WEBHOOK_DISPATCH_JOB, { trigger: "hint" }, { singletonKey: HINT_KEY });
}
