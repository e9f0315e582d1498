// Scale-out as deployed: two `serve --no-worker` API processes and two `worker` processes on one
// PostgreSQL database and Redis. Credits, key revocation and rate limits hold across instances;
// every process serves metrics; SIGTERM drains an API without dropping a request.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postgresSkipReason, redisSkipReason } from "../support/services.js";
import { waitFor } from "../support/wait-for.js";
import { type Cluster, type ClusterNode, sampleSum, scrape, startCluster } from "./cluster.js";

const CHECKS = 1000;
const CREDITS_FOR = 400;

const skip = (await postgresSkipReason()) || (await redisSkipReason());

describe("scale-out: two API processes and two workers on one PostgreSQL and Redis", { skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster({
      apis: 2,
      workers: 2,
      env: {
        RATE_LIMIT_PER_MINUTE: "100000",
        RATE_LIMIT_PER_HOUR: "1000000",
        RATE_LIMIT_ENDPOINTS: "POST /v1/check-website=100000,GET /v1/leads=30",
        // 1,000 debits of one account's row queue for 2 x 20 pool connections: on a loaded CI
        // machine the queue outlasted the 20 s default wait and answered 503. This file proves the
        // exact accounting, so its requests may wait as long as the queue takes.
        DATABASE_CONNECT_TIMEOUT_MS: "120000",
      },
      apiEnv: { SHUTDOWN_DRAIN_MS: "1500", SHUTDOWN_TIMEOUT_MS: "15000" },
    });
  });
  after(async () => cluster?.close());

  const get = (api: ClusterNode, path: string, key: string) =>
    fetch(`${api.url}${path}`, { headers: { "x-api-key": key } });

  it("gives exactly 400 of 1,000 concurrent website checks over both APIs to an account with credits for 400; the rest get 402 and the balance ends at exactly 0", async () => {
    const account = "acct_scale_credits";
    const { key } = await cluster.apiKey(account);
    await cluster.grant(account, CREDITS_FOR / 1000);
    const unavailable: string[] = [];
    const statuses = await Promise.all(
      Array.from({ length: CHECKS }, async (_, i) => {
        const res = await fetch(`${cluster.apis[i % 2]!.url}/v1/check-website`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ website: "acme.test", returnDetails: false }),
        });
        const body = await res.text();
        if (res.status === 503) unavailable.push(body);
        return res.status;
      }),
    );
    const count = (status: number) => statuses.filter((s) => s === status).length;
    assert.equal(
      count(200),
      CREDITS_FOR,
      `successes (statuses seen: ${[...new Set(statuses)].join(", ")}; first 503: ${unavailable[0] ?? "none"}; ` +
        `the APIs logged: ${cluster.apis
          .map((api) =>
            api.proc
              .output()
              .split("\n")
              .filter((l) => l.includes("503"))
              .slice(0, 2)
              .join("\n"),
          )
          .join("\n")})`,
    );
    assert.equal(count(402), CHECKS - CREDITS_FOR, "402 for every check beyond the credits");

    for (const api of cluster.apis) {
      const balance = (await (await get(api, "/v1/credits", key)).json()) as { credits: number };
      assert.equal(balance.credits, 0, `balance seen through ${api.url}`);
    }
    const { rows } = await cluster.pg.query(
      `select count(*)::int as debits, coalesce(sum(delta_milli), 0)::int as spent,
              (select balance_milli from accounts where id = $1)::int as balance
       from credit_ledger where account_id = $1 and kind = 'debit'`,
      [account],
    );
    assert.deepEqual(rows[0], { debits: CREDITS_FOR, spent: -CREDITS_FOR, balance: 0 });
  });

  it("refuses a key revoked through one instance on the other instance's next request", async () => {
    const account = "acct_scale_revoke";
    const [a, b] = cluster.apis as [ClusterNode, ClusterNode];
    const { key, keyId } = await cluster.apiKey(account, a);
    assert.equal((await get(b, "/v1/credits", key)).status, 200, "the key works on the other instance");
    const revoked = await fetch(`${a.url}/v1/auth/keys/${keyId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${await cluster.token(account)}` },
    });
    assert.equal(revoked.status, 200);
    const refused = await get(b, "/v1/credits", key);
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get("x-ratelimit-limit"), null, "no rate-limit headers on a refused key");
    assert.equal(((await refused.json()) as { error_code: string }).error_code, "INVALID_API_KEY");
  });

  it("holds a per-endpoint limit (30 a minute) in total across both instances", async () => {
    const { key } = await cluster.apiKey("acct_scale_limits");
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await get(cluster.apis[i % 2]!, "/v1/leads?limit=1", key);
        await res.arrayBuffer();
        return res.status;
      }),
    );
    assert.equal(statuses.filter((s) => s === 200).length, 30);
    assert.equal(statuses.filter((s) => s === 429).length, 20);
  });

  it("serves Prometheus metrics on every process without authentication, rate limits or an OpenAPI entry", async () => {
    const texts = await Promise.all(cluster.apis.map(scrape));
    const total = (name: string, labels: Record<string, string> = {}) =>
      texts.reduce((sum, text) => sum + sampleSum(text, name, labels), 0);
    // Under load a few checks may time out (inactive): count every verdict.
    assert.equal(total("leadcheck_checks_total", { kind: "website" }), CREDITS_FOR);
    assert.equal(total("leadcheck_credits_spent_milli_total"), CREDITS_FOR);
    const route = { route: "/v1/check-website", method: "POST" };
    assert.equal(
      total("leadcheck_http_request_duration_seconds_count", { ...route, status_code: "200" }),
      CREDITS_FOR,
    );
    assert.equal(
      total("leadcheck_http_request_duration_seconds_count", { ...route, status_code: "402" }),
      CHECKS - CREDITS_FOR,
    );
    assert.ok(
      total("leadcheck_http_request_duration_seconds_count", { route: "/v1/leads", status_code: "429" }) >=
        20,
    );
    assert.match(texts[0]!, /process_resident_memory_bytes/);

    const res = await fetch(`${cluster.apis[0]!.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(res.headers.get("x-ratelimit-limit"), null, "not rate limited");
    const openapi = await (await fetch(`${cluster.apis[0]!.url}/openapi.json`)).text();
    assert.doesNotMatch(openapi, /"\/metrics"/);

    const worker = await scrape(cluster.workers[0]!);
    assert.match(worker, /leadcheck_job_queue_depth\{queue="batch.run"\} \d+/);
    assert.match(worker, /leadcheck_job_queue_oldest_age_seconds\{queue="email.verify"\} [\d.]+/);
    assert.match(worker, /leadcheck_jobs_running\{queue="batch.run"\} 0/);
  });

  it("on SIGTERM an API turns readiness 503 first, finishes the request in flight, exits 0, and the other keeps serving", async () => {
    const account = "acct_scale_drain";
    const { key } = await cluster.apiKey(account);
    await cluster.grant(account, 0.01);
    const [a, b] = cluster.apis as [ClusterNode, ClusterNode];
    cluster.fake.sites.set("www.acme.test", {
      body: "<html><h1>Acme Inc.</h1><p>A slow page of a live site, answered after 1.5 s.</p></html>",
      delayMs: 1500,
    });
    const seenBefore = cluster.fake.sites.requests.length;
    const inFlight = fetch(`${b.url}/v1/check-website`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ website: "www.acme.test" }),
    });
    await waitFor(
      async () =>
        cluster.fake.sites.requests.slice(seenBefore).some((r) => r.host.startsWith("www.acme.test")),
      "the check to reach the slow site",
    );
    b.proc.child.kill("SIGTERM");
    await waitFor(async () => (await fetch(`${b.url}/readiness`)).status === 503, "readiness 503", 20_000);
    assert.equal((await fetch(`${b.url}/health`)).status, 200, "still serving while draining");
    const answered = await inFlight;
    assert.equal(answered.status, 200, "the request in flight is answered");
    assert.equal(await b.proc.exitCode(), 0, b.proc.output());
    assert.equal((await get(a, "/v1/credits", key)).status, 200);
    cluster.apis.splice(cluster.apis.indexOf(b), 1);
  });
});
