// Prometheus metrics of one process (prom-client), on a registry of its own so several services
// in one test process never share counters. API processes serve them at GET /metrics; workers at
// WORKER_PORT. Counters count what this process did: sum them over instances. Queue gauges come
// from the shared database, so every process reports the same value: take their max.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { JobQueue } from "../jobs/job-queue.js";

/** Request latency buckets in seconds: fast reads to the 30 s website check. */
const HTTP_BUCKETS_SECONDS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_BUCKETS_SECONDS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300];

export class Metrics {
  readonly registry = new Registry();

  readonly httpRequestDuration = new Histogram({
    name: "leadcheck_http_request_duration_seconds",
    help: "HTTP requests by route pattern, method and status, with their latency",
    labelNames: ["method", "route", "status_code"] as const,
    buckets: HTTP_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  readonly checks = new Counter({
    name: "leadcheck_checks_total",
    help: "Website and email checks performed by this process, by verdict (website status, email status)",
    labelNames: ["kind", "verdict"] as const,
    registers: [this.registry],
  });

  /** Incremented once per recorded delivery attempt (the dispatcher's onAttempt, wired in main.ts). */
  readonly webhookDeliveries = new Counter({
    name: "leadcheck_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome (success, failed, retry)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  readonly creditsSpentMilli = new Counter({
    name: "leadcheck_credits_spent_milli_total",
    help: "Milli-credits debited by this process (1 milli-credit = 1 display credit)",
    registers: [this.registry],
  });

  /** Work the stalled-work sweeper closed (its job was lost without its onExhausted hook). */
  readonly sweeperClosed = new Counter({
    name: "leadcheck_sweeper_closed_total",
    help: "Batches, leads and validation jobs left processing that the sweeper closed, by kind",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });

  readonly jobAttempts = new Counter({
    name: "leadcheck_job_attempts_total",
    help: "Job attempts run by this process, by queue and outcome (completed, failed)",
    labelNames: ["queue", "outcome"] as const,
    registers: [this.registry],
  });

  readonly jobAttemptDuration = new Histogram({
    name: "leadcheck_job_attempt_duration_seconds",
    help: "Duration of job attempts run by this process",
    labelNames: ["queue"] as const,
    buckets: JOB_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  readonly jobsRunning = new Gauge({
    name: "leadcheck_jobs_running",
    help: "Job attempts running in this process right now",
    labelNames: ["queue"] as const,
    registers: [this.registry],
  });

  #isCollectingProcessMetrics = false;

  /** Adds Node's process metrics (CPU, memory, event loop lag, handles). Real processes call it
   *  once; tests building many services in one process leave it off. */
  collectProcessMetrics(): void {
    if (this.#isCollectingProcessMetrics) return;
    this.#isCollectingProcessMetrics = true;
    collectDefaultMetrics({ register: this.registry });
  }

  /** Queue depth, running jobs and the oldest due job's age, read from the queue at each scrape. */
  watchQueue(queue: Pick<JobQueue, "stats">, queueNames: () => readonly string[]): void {
    let refreshing: Promise<void> | undefined;
    // prom-client collects every metric of a scrape at once: the three gauges share one read.
    const refresh = () => {
      refreshing ??= Promise.all(
        queueNames().map(async (name) => {
          // A failing database must not break the scrape: the gauges keep their last values.
          const stats = await queue.stats(name).catch(() => undefined);
          if (!stats) return;
          queued.set({ queue: name }, stats.queued);
          active.set({ queue: name }, stats.active);
          oldest.set({ queue: name }, (stats.oldestQueuedAgeMs ?? 0) / 1000);
        }),
      ).then(
        () => {
          refreshing = undefined;
        },
        () => {
          refreshing = undefined;
        },
      );
      return refreshing;
    };
    const queued = new Gauge({
      name: "leadcheck_job_queue_depth",
      help: "Jobs waiting in the shared queue (including scheduled and retrying ones)",
      labelNames: ["queue"] as const,
      registers: [this.registry],
      collect: refresh,
    });
    const active = new Gauge({
      name: "leadcheck_job_queue_active",
      help: "Jobs running in the shared queue, over all workers",
      labelNames: ["queue"] as const,
      registers: [this.registry],
      collect: refresh,
    });
    const oldest = new Gauge({
      name: "leadcheck_job_queue_oldest_age_seconds",
      help: "How long the longest-waiting due job has been runnable (0 when none is due)",
      labelNames: ["queue"] as const,
      registers: [this.registry],
      collect: refresh,
    });
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
