import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "@sinclair/typebox";
import type { JobDefinition } from "../jobs/catalog.js";
import type { Job, QueueStats } from "../jobs/job-queue.js";
import { routeLabelOf, UNMATCHED_ROUTE } from "./http-metrics.js";
import { checkMeters, creditMeter, meterJobs } from "./instrument.js";
import { Metrics } from "./metrics.js";

async function sampleOf(metrics: Metrics, name: string, labels: Record<string, string> = {}) {
  const metric = metrics.registry.getSingleMetric(name);
  assert.ok(metric, `${name} is registered`);
  const { values } = await metric.get();
  const found = values.find((v) =>
    Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want),
  );
  return found?.value;
}

const job = (name: string): Job => ({
  id: "j1",
  name,
  data: {},
  retryCount: 0,
  expireInMs: 1000,
  signal: new AbortController().signal,
  cause: null,
});

describe("metrics", () => {
  it("labels requests by route pattern, and every unmatched URL with one label", () => {
    const cases: [string | undefined, string][] = [
      ["/v1/leads/:leadId", "/v1/leads/:leadId"],
      ["/metrics", "/metrics"],
      [undefined, UNMATCHED_ROUTE],
    ];
    for (const [url, label] of cases) {
      assert.equal(routeLabelOf({ routeOptions: { url } } as Parameters<typeof routeLabelOf>[0]), label);
    }
  });

  it("counts job attempts by outcome and shows how many run in this process", async () => {
    const metrics = new Metrics();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const catalog: JobDefinition[] = [
      {
        name: "ok.job",
        schema: Type.Object({}),
        policy: { retryLimit: 0, retryDelayMs: 0, expireInMs: 1000 },
        concurrency: 1,
        handler: () => gate,
      },
      {
        name: "bad.job",
        schema: Type.Object({}),
        policy: { retryLimit: 0, retryDelayMs: 0, expireInMs: 1000 },
        concurrency: 1,
        handler: async () => {
          throw new Error("boom");
        },
      },
    ];
    const [ok, bad] = meterJobs(metrics, catalog);
    assert.equal(ok!.policy.expireInMs, 1000, "the definition is kept apart from its handler");
    const running = ok!.handler(job("ok.job"));
    assert.equal(await sampleOf(metrics, "leadcheck_jobs_running", { queue: "ok.job" }), 1);
    release();
    await running;
    await assert.rejects(bad!.handler(job("bad.job")), /boom/);
    assert.equal(await sampleOf(metrics, "leadcheck_jobs_running", { queue: "ok.job" }), 0);
    assert.equal(await sampleOf(metrics, "leadcheck_jobs_running", { queue: "bad.job" }), 0);
    assert.equal(
      await sampleOf(metrics, "leadcheck_job_attempts_total", { queue: "ok.job", outcome: "completed" }),
      1,
    );
    assert.equal(
      await sampleOf(metrics, "leadcheck_job_attempts_total", { queue: "bad.job", outcome: "failed" }),
      1,
    );
  });

  it("counts website and email checks by verdict", async () => {
    const metrics = new Metrics();
    const { onChecked, onVerified } = checkMeters(metrics);
    for (const status of ["active", "inactive", "active"] as const) onChecked(status);
    onVerified("valid");
    onVerified("invalid");
    assert.equal(
      await sampleOf(metrics, "leadcheck_checks_total", { kind: "website", verdict: "active" }),
      2,
    );
    assert.equal(
      await sampleOf(metrics, "leadcheck_checks_total", { kind: "website", verdict: "inactive" }),
      1,
    );
    assert.equal(await sampleOf(metrics, "leadcheck_checks_total", { kind: "email", verdict: "invalid" }), 1);
  });

  it("counts the debited milli-credits it is told of", async () => {
    const metrics = new Metrics();
    const onDebited = creditMeter(metrics);
    onDebited(7);
    onDebited(3);
    assert.equal(await sampleOf(metrics, "leadcheck_credits_spent_milli_total"), 10);
  });

  it("reads queue depth, running jobs and the oldest age per queue at scrape time", async () => {
    const metrics = new Metrics();
    const stats: Record<string, QueueStats> = {
      "batch.run": { queued: 4, active: 2, oldestQueuedAgeMs: 1500 },
      "email.verify": { queued: 0, active: 0, oldestQueuedAgeMs: null },
    };
    let reads = 0;
    metrics.watchQueue(
      {
        stats: async (name?: string) => {
          reads++;
          if (name === "broken") throw new Error("database down");
          return stats[name!]!;
        },
      },
      () => ["batch.run", "email.verify", "broken"],
    );
    const { body } = await metrics.render();
    assert.equal(reads, 3, "one read per queue for the three gauges of a scrape");
    assert.match(body, /leadcheck_job_queue_depth\{queue="batch.run"\} 4/);
    assert.match(body, /leadcheck_job_queue_active\{queue="batch.run"\} 2/);
    assert.match(body, /leadcheck_job_queue_oldest_age_seconds\{queue="batch.run"\} 1.5/);
    assert.match(body, /leadcheck_job_queue_oldest_age_seconds\{queue="email.verify"\} 0/);
    assert.doesNotMatch(body, /queue="broken"/);
  });

  it("keeps every service's metrics apart", async () => {
    const a = new Metrics();
    const b = new Metrics();
    a.webhookDeliveries.inc({ outcome: "success" });
    assert.equal(await sampleOf(a, "leadcheck_webhook_deliveries_total", { outcome: "success" }), 1);
    assert.equal(await sampleOf(b, "leadcheck_webhook_deliveries_total", { outcome: "success" }), undefined);
  });
});
