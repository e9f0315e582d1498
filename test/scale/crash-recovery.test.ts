// Workers die and stop while they hold work: a SIGKILLed worker's batch chunk or email job is
// finished by another worker once its expiry passes (JOB_EXPIRY_MS shortens it here), nothing is
// charged twice and no lead stays in `processing`, a webhook delivery goes out again under its own
// id; a SIGTERMed worker hands its job back at once.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postgresSkipReason, redisSkipReason } from "../support/services.js";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server.js";
import { waitFor } from "../support/wait-for.js";
import { type Receiver, startReceiver } from "../webhooks/receiver.js";
import { type Cluster, type ClusterNode, sampleSum, scrape, startCluster, workerRunning } from "./cluster.js";

const LEADS = 2000;
const PRICE_MILLI = 2;

const skip = (await postgresSkipReason()) || (await redisSkipReason());

describe("crash recovery: workers killed or stopped while holding work", { skip }, () => {
  let cluster: Cluster;
  let slowMx: TestSmtpServer;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    cluster = await startCluster({
      apis: 1,
      workers: 2,
      env: {
        RATE_LIMIT_PER_MINUTE: "100000",
        RATE_LIMIT_PER_HOUR: "1000000",
        RATE_LIMIT_ENDPOINTS: "POST /v1/check-email=100000",
        JOB_EXPIRY_MS: "batch.run=8000,email.verify=8000,webhooks.deliver=8000",
      },
      workerEnv: { SHUTDOWN_TIMEOUT_MS: "1000" },
    });
    // Mail servers answering after a delay, so a chunk or an email job is still running when
    // its worker dies. mx.slow.test (127.0.0.5) shares the fake internet's SMTP port.
    cluster.fake.smtp.set("127.0.0.2", { mailboxes: ["alice@acme.test"], replyDelayMs: 30 });
    cluster.fake.smtp.set("127.0.0.3", { catchAll: true, replyDelayMs: 30 });
    slowMx = await startSmtpServer(
      { "127.0.0.5": { catchAll: true, replyDelayMs: 700 } },
      cluster.fake.smtp.port,
    );
  });
  after(async () => {
    await cluster?.close();
    await slowMx?.close();
    await receiver?.close();
  });

  const api = () => cluster.apis[0]!;
  const call = async (
    key: string,
    method: string,
    path: string,
    body?: unknown,
    type = "application/json",
  ) => {
    const res = await fetch(`${api().url}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": type }) },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  const replacements: Promise<ClusterNode>[] = [];
  const activeJobs = async (queue: string) =>
    Number(
      (
        await cluster.pg.query(
          "select count(*)::int as n from pgboss.job where name = $1 and state = 'active'",
          [queue],
        )
      ).rows[0].n,
    );

  /** SIGKILLs the worker running a job of `queue` and starts a replacement, as a process manager
   *  would. The job must be left active (orphaned); if it finished between the look and the
   *  kill, the next holder is killed instead. */
  async function killHolder(queue: string): Promise<void> {
    for (let tries = 0; tries < 3; tries++) {
      const holder = await workerRunning(cluster, queue);
      await cluster.kill(holder);
      replacements.push(cluster.startWorker());
      const live = await Promise.all(cluster.workers.map((w) => scrape(w).catch(() => "")));
      const heldByLive = live.reduce(
        (n, text) => n + sampleSum(text, "leadcheck_jobs_running", { queue }),
        0,
      );
      if ((await activeJobs(queue)) > heldByLive) return;
    }
    throw new Error(`could not kill a worker while it held a ${queue} job`);
  }

  it("finishes a 2,000-lead batch after the worker running it is SIGKILLed at ~30 % and again at ~60 %, charging each lead once and leaving none in processing", async () => {
    const account = "acct_crash_batch";
    const { key } = await cluster.apiKey(account);
    await cluster.grant(account, (LEADS * PRICE_MILLI) / 1000);
    const rows = Array.from({ length: LEADS }, (_, i) =>
      i % 2 === 0 ? `lead${i}@catchall.test,acme.test` : `lead${i}@acme.test,`,
    );
    const imported = await call(
      key,
      "POST",
      "/v1/leads/import",
      `email,website\n${rows.join("\n")}\n`,
      "text/csv",
    );
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    assert.equal(imported.body.created, LEADS);
    const batchId = String(imported.body.batchId);
    const progress = async () => Number((await call(key, "GET", `/v1/batches/${batchId}`)).body.progress);
    for (const percent of [25, 50]) {
      await waitFor(async () => (await progress()) >= percent, `batch progress ${percent} %`, 90_000);
      await Promise.all(replacements);
      await killHolder("batch.run");
    }
    await waitFor(
      async () => (await call(key, "GET", `/v1/batches/${batchId}`)).body.status !== "processing",
      "the batch to finish",
      120_000,
    );
    await Promise.all(replacements);

    const batch = (await call(key, "GET", `/v1/batches/${batchId}`)).body;
    assert.equal(batch.status, "completed");
    assert.equal(batch.completedLeads, LEADS);
    assert.equal(batch.failedLeads, 0);
    assert.equal(Number(batch.validLeads) + Number(batch.invalidLeads) <= LEADS, true);

    const db = cluster.pg;
    const statuses = await db.query(
      "select validation_status as status, count(*)::int as n from leads where account_id = $1 group by 1",
      [account],
    );
    const byStatus = Object.fromEntries(statuses.rows.map((r) => [r.status, r.n]));
    assert.equal(byStatus.processing, undefined, "no lead left in processing");
    assert.equal(byStatus.new, undefined);
    assert.equal(
      Object.values(byStatus).reduce((a: number, b) => a + Number(b), 0),
      LEADS,
    );
    const items = await db.query(
      "select count(*)::int as n from batch_items where batch_id = $1 and status = 'done'",
      [batchId],
    );
    assert.equal(items.rows[0].n, LEADS, "every item done once");
    const ledger = await db.query(
      `select count(*)::int as debits, sum(delta_milli)::int as spent,
              (select balance_milli from accounts where id = $1)::int as balance
       from credit_ledger where account_id = $1 and kind = 'debit'`,
      [account],
    );
    assert.deepEqual(ledger.rows[0], { debits: 1, spent: -LEADS * PRICE_MILLI, balance: 0 });
    const validated = await db.query(
      `select count(*)::int as events, count(distinct payload::json->>'leadId')::int as leads
       from events where account_id = $1 and type = 'lead.validated'`,
      [account],
    );
    assert.deepEqual(validated.rows[0], { events: LEADS, leads: LEADS }, "one lead.validated per lead");
    const retried = await db.query(
      "select coalesce(sum(retry_count), 0)::int as n from pgboss.job where name = 'batch.run'",
    );
    assert.ok(retried.rows[0].n >= 2, "both orphaned chunks were retried by another worker");
  });

  it("finishes an email job on another worker after the worker running it is SIGKILLed, charging it once", async () => {
    const account = "acct_crash_email";
    const { key } = await cluster.apiKey(account);
    await cluster.grant(account, 0.01);
    const answer = call(key, "POST", "/v1/check-email", { email: "someone@slow.test", timeout: 5 });
    await killHolder("email.verify");
    const first = await answer;
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.status, "processing");
    const jobId = String(first.body.jobId);
    const job = await waitFor(
      async () => {
        const polled = await call(key, "GET", `/v1/validation-jobs/${jobId}`);
        return polled.body.status === "processing" ? undefined : polled.body;
      },
      "the email job to finish",
      60_000,
    );
    assert.equal(job.status, "completed", JSON.stringify(job));
    assert.equal((job.result as { catch_all: boolean }).catch_all, true);
    await Promise.all(replacements);
    await assertChargedOnce(account, jobId, 10 - 1);
    const attempts = await cluster.pg.query(
      "select retry_count from pgboss.job where name = 'email.verify' and data->>'jobId' = $1",
      [jobId],
    );
    assert.ok(attempts.rows[0].retry_count >= 1, "the killed attempt expired and was retried");
  });

  it("on SIGTERM a worker hands its running email job back at once, exits 0, and another worker finishes it without using a retry", async () => {
    const account = "acct_stop_email";
    const { key } = await cluster.apiKey(account);
    await cluster.grant(account, 0.01);
    const answer = call(key, "POST", "/v1/check-email", { email: "other@slow.test", timeout: 5 });
    const holder = await workerRunning(cluster, "email.verify");
    const stoppedAt = Date.now();
    holder.proc.child.kill("SIGTERM");
    assert.equal(await holder.proc.exitCode(), 0, holder.proc.output());
    assert.ok(Date.now() - stoppedAt < 10_000, "exits within its 1 s shutdown budget plus closing");
    cluster.workers.splice(cluster.workers.indexOf(holder), 1);
    // Another worker takes the job at once; the answer is the result or a job to poll.
    const answered = await answer;
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    const job = await waitFor(
      async () => {
        const { rows } = await cluster.pg.query(
          "select id, status from validation_jobs where account_id = $1 and status <> 'processing'",
          [account],
        );
        return rows[0] as { id: string; status: string } | undefined;
      },
      "the handed-back email job to finish",
      30_000,
    );
    assert.equal(job.status, "completed");
    await assertChargedOnce(account, job.id, 10 - 1);
    const attempts = await cluster.pg.query(
      "select retry_count from pgboss.job where name = 'email.verify' and data->>'jobId' = $1",
      [job.id],
    );
    assert.equal(attempts.rows[0].retry_count, 0, "handing back does not count as a failed attempt");
  });

  it("finishes a webhook retry on another worker after the worker sending it is SIGKILLed, with the same delivery id", async () => {
    const account = "acct_crash_webhook";
    const { key } = await cluster.apiKey(account);
    // First attempt fails, the retry hangs (its worker dies while sending it), later ones succeed.
    receiver.on("/crash", (r) =>
      r.count === 1 ? { status: 500 } : r.count === 2 ? "hang" : { status: 204 },
    );
    const created = await call(key, "POST", "/v1/webhooks", {
      name: "crash receiver",
      url: receiver.url("/crash"),
      events: ["lead.created"],
      retry_config: { max_retries: 3, retry_delays: [200, 200, 200] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const lead = await call(key, "POST", "/v1/leads", { email: "hook@acme.test", validate: false });
    assert.equal(lead.status, 201, JSON.stringify(lead.body));

    await waitFor(
      async () => receiver.received.filter((r) => r.path === "/crash").length >= 2,
      "the retry",
      30_000,
    );
    await killHolder("webhooks.deliver");
    const webhookId = String(created.body.webhook_id);
    const delivery = await waitFor(
      async () => {
        const { body } = await call(key, "GET", `/v1/webhooks/${webhookId}/deliveries`);
        const [record] = body.deliveries as { status: string; attempts: number; delivery_id: string }[];
        return record?.status === "success" ? record : undefined;
      },
      "the delivery to succeed on another worker",
      60_000,
    );
    await Promise.all(replacements);
    const got = receiver.received.filter((r) => r.path === "/crash");
    assert.equal(got.length, 3, "failed, cut off by the kill, then delivered");
    assert.deepEqual(
      [...new Set(got.map((r) => r.headers["x-webhook-delivery"]))],
      [delivery.delivery_id],
      "every attempt carries the one delivery id, so the receiver can drop duplicates",
    );
    assert.equal(delivery.attempts, 2, "the killed attempt was never recorded; its rerun was");
    const retried = await cluster.pg.query(
      "select max(retry_count)::int as n from pgboss.job where name = 'webhooks.deliver' and data->>'deliveryId' = $1",
      [delivery.delivery_id],
    );
    assert.ok(retried.rows[0].n >= 1, "the orphaned attempt expired and was retried by another worker");
  });

  async function assertChargedOnce(account: string, jobId: string, balanceMilli: number) {
    const { rows } = await cluster.pg.query(
      `select count(*)::int as debits, (select balance_milli from accounts where id = $1)::int as balance
       from credit_ledger where account_id = $1 and kind = 'debit' and reference = $2`,
      [account, jobId],
    );
    assert.deepEqual(rows[0], { debits: 1, balance: balanceMilli });
  }
});
