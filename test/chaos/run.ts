// `npm run chaos [-- --short] [-- --seconds N] [-- --seed S]`: two API processes and two workers on
// a PostgreSQL and a Redis of the run's own, with the local fakes for DNS, SMTP, HTTP and a
// webhook receiver, under a mixed load while faults hit them: a random process SIGKILLed every few
// seconds and restarted, PostgreSQL restarted once, Redis restarted once, the webhook receiver
// failing for a while. Then the load stops, the system is given time to settle, and the
// invariants are checked and printed as a table. Exit code 1 on any violation.
// Full mode: 5 minutes of faults. Short mode (CI): 90 seconds.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { EVENT_TYPES } from "../../src/events/events.js";
import { type Cluster, type ClusterNode, startCluster } from "../scale/cluster.js";
import { UNLIMITED_RATE_ENV } from "../support/harness.js";
import { type Receiver, startReceiver } from "../webhooks/receiver.js";
import { checkInvariants, printTable, type Window } from "./invariants.js";
import { type Account, startLoad } from "./load.js";
import {
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from "./private-services.js";
import { Recorder } from "./recorder.js";

const { values: args } = parseArgs({
  options: {
    short: { type: "boolean", default: false },
    seconds: { type: "string" },
    seed: { type: "string" },
  },
});
const MODE = args.short ? "short" : "full";
const FAULT_MS = (args.seconds ? Number(args.seconds) : args.short ? 90 : 300) * 1000;
const SETTLE_MS = args.short ? 60_000 : 180_000;
const KILL_EVERY_MS: [number, number] = [3000, 8000];
const POSTGRES_DOWN_MS = 4000;
const REDIS_DOWN_MS = 3000;
const RECEIVER_DOWN_MS = args.short ? 15_000 : 40_000;
const SEED = args.seed ? Number(args.seed) : Date.now() % 1_000_000;
/** A request begun while PostgreSQL was down may still fail this long after it is back. */
const GRACE_MS = 3000;

/** Deterministic choices for a given seed (timings still vary). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const log = (message: string) => console.log(`[chaos +${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);

/** The log line of each close by the stalled-work sweeper (src/main.ts). */
const SWEEPER_CLOSED_LOG = "sweeper closed work left processing";

const PRICES = { leadCreateWithValidation: 2, leadValidation: 2, emailCheck: 1, domainItem: 1 };

async function main(): Promise<number> {
  const random = mulberry32(SEED);
  log(`mode ${MODE}: ${FAULT_MS / 1000} s of faults, seed ${SEED}`);
  let postgres: PrivatePostgres | undefined;
  let redis: PrivateRedis | undefined;
  let receiver: Receiver | undefined;
  let cluster: Cluster | undefined;
  const cleanup = async () => {
    await cluster?.close().catch((e) => console.error("cluster close:", e));
    await receiver?.close().catch(() => {});
    await redis?.remove().catch((e) => console.error("redis remove:", e));
    await postgres?.remove().catch((e) => console.error("postgres remove:", e));
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`${signal}: cleaning up`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  try {
    [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    log(`private PostgreSQL on :${postgres.port}, Redis on :${redis.port}`);
    receiver = await startReceiver();
    cluster = await startCluster({
      apis: 2,
      workers: 2,
      pgAdminUrl: postgres.adminUrl,
      redisUrl: redis.url,
      // Four Node processes starting at once on a loaded 2-core machine can take minutes.
      readyTimeoutMs: 240_000,
      env: {
        ...UNLIMITED_RATE_ENV,
        // A killed worker's job is retried soon (the defaults are minutes).
        JOB_EXPIRY_MS:
          "batch.run=10000,lead.validate=20000,email.verify=15000,webhooks.deliver=10000,webhooks.dispatch=10000",
        // The stalled-work sweeper closes what the hooks missed within the settle window (its
        // defaults wait 30 minutes); each close is counted in the figures (sweeperClosed).
        SWEEP_INTERVAL_MS: "10000",
        SWEEP_BATCH_STALL_MS: "150000",
        SWEEP_LEAD_STALL_MS: "240000",
        SWEEP_VALIDATION_JOB_GRACE_MS: "60000",
        WEBHOOK_TIMEOUT_MS: "5000",
        WEBHOOK_DISPATCH_INTERVAL_MS: "1000",
        BATCH_CHUNK_SIZE: "250",
      },
    });
    const c = cluster;
    c.pg.on("error", () => {}); // idle clients die with the PostgreSQL restart; the pool replaces them
    log("cluster up: 2 APIs, 2 workers");
    return await chaos(c, receiver, postgres, redis, random);
  } finally {
    await cleanup();
  }
}

async function chaos(
  cluster: Cluster,
  receiver: Receiver,
  postgres: PrivatePostgres,
  redis: PrivateRedis,
  random: () => number,
): Promise<number> {
  const recorder = new Recorder(() => cluster.apis);
  const documented = await openapiStatuses(cluster.apis[0]!);

  // Accounts, each with a webhook on the receiver. The import account's 2,000-lead batches would
  // each send 4,000 lead.* events: it subscribes to the batch and credit events only.
  const accepted = new Set<string>();
  let receiverFailing = false;
  const names = ["leads", "imports", "domains", "email"] as const;
  const accounts = {} as Record<(typeof names)[number], Account>;
  for (const name of names) {
    const id = `acct_chaos_${name}`;
    const { key } = await cluster.apiKey(id);
    await cluster.grant(id, 1000);
    accounts[name] = { id, key };
    const events = EVENT_TYPES.filter((t) => name !== "imports" || !t.startsWith("lead."));
    const path = `/hook/${name}`;
    receiver.on(path, (r) => {
      if (receiverFailing) return { status: 503, body: "failing on purpose" };
      accepted.add(String(r.json.eventId));
      return { status: 200, body: "ok" };
    });
    const hook = await recorder.request("POST /v1/webhooks", "/v1/webhooks", {
      key,
      body: {
        name: `chaos ${name}`,
        url: receiver.url(path),
        events,
        // Enough retries, far enough apart, to outlast the receiver's outage and the kills.
        retry_config: { max_retries: 10, retry_delays: [1000, 2000, 4000, 8000, 15000] },
      },
    });
    if (hook.status !== 201) throw new Error(`webhook creation: ${hook.status} ${JSON.stringify(hook.body)}`);
  }
  let adhoc = 0;
  receiver.on("/adhoc", () => {
    adhoc++;
    return receiverFailing ? { status: 503 } : { status: 200 };
  });

  const load = startLoad({
    recorder,
    random,
    accounts,
    adhocUrl: receiver.url("/adhoc"),
    importLeads: 2000,
    importPauseMs: MODE === "short" ? 5000 : 10_000,
    leadLoops: 3,
    emailLoops: 2,
  });
  log("load started");

  // Faults.
  const faultStart = Date.now();
  const postgresDown: Window[] = [];
  const redisDown: Window[] = [];
  const receiverDown: Window[] = [];
  const kills: { at: number; kind: string; port: number }[] = [];
  const restarts: Promise<void>[] = [];
  const restartFailures: string[] = [];
  let restarted = 0;

  async function restart(kind: ClusterNode["kind"]): Promise<void> {
    const deadline = Date.now() + 180_000;
    for (let attempt = 1; ; attempt++) {
      try {
        await (kind === "api" ? cluster.startApi() : cluster.startWorker());
        restarted++;
        return;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (Date.now() > deadline) {
          restartFailures.push(`${kind} not back after ${attempt} tries: ${message.slice(0, 300)}`);
          return;
        }
        log(`${kind} restart try ${attempt} failed: ${message.split("\n")[0]!.slice(0, 160)}`);
        await sleep(2000);
      }
    }
  }

  async function killOne(): Promise<void> {
    const candidates = [...cluster.apis, ...cluster.workers].filter((n) => !recorder.killedAt.has(n));
    let node = candidates[Math.floor(random() * candidates.length)];
    // Keep one API serving, so the load always has somewhere to go.
    if (node?.kind === "api" && cluster.apis.filter((n) => !recorder.killedAt.has(n)).length <= 1) {
      node = cluster.workers[Math.floor(random() * cluster.workers.length)];
    }
    if (!node) return;
    recorder.killedAt.set(node, Date.now());
    kills.push({ at: Date.now() - faultStart, kind: node.kind, port: node.port });
    await cluster.kill(node);
    log(`SIGKILL ${node.kind} :${node.port} (${kills.length} so far); restarting it`);
    restarts.push(restart(node.kind));
  }

  // A process that dies on its own is a finding; a process manager would start it again.
  const crashes: string[] = [];
  const watched = new Set<ClusterNode>();
  const watchdog = setInterval(() => {
    for (const node of [...cluster.apis, ...cluster.workers]) {
      if (!watched.has(node)) {
        watched.add(node);
        node.proc.child.once("exit", () => recorder.exitedAt.set(node, Date.now()));
      }
      if (recorder.killedAt.has(node) || recorder.crashedAt.has(node)) continue;
      if (node.proc.child.exitCode === null && node.proc.child.signalCode === null) continue;
      recorder.crashedAt.set(node, recorder.exitedAt.get(node) ?? Date.now());
      const list = node.kind === "api" ? cluster.apis : cluster.workers;
      list.splice(list.indexOf(node), 1);
      const tail = node.proc.output().trim().split("\n").slice(-12).join(" | ");
      crashes.push(
        `${node.kind} :${node.port} exited (${node.proc.child.exitCode ?? node.proc.child.signalCode}) at +${((Date.now() - faultStart) / 1000).toFixed(1)} s: ${tail.slice(-700)}`,
      );
      log(`${node.kind} :${node.port} DIED ON ITS OWN; restarting it`);
      restarts.push(restart(node.kind));
    }
  }, 250);

  const at = (fraction: number) => sleep(Math.max(0, faultStart + fraction * FAULT_MS - Date.now()));
  const scheduled = [
    (async () => {
      await at(0.3);
      const w = { from: Date.now(), to: 0 };
      postgresDown.push(w);
      log("PostgreSQL: stopping (fast shutdown)");
      await postgres.stop();
      await sleep(POSTGRES_DOWN_MS);
      await postgres.start();
      w.to = Date.now();
      log(`PostgreSQL: back after ${((w.to - w.from) / 1000).toFixed(1)} s`);
    })(),
    (async () => {
      await at(0.5);
      const w = { from: Date.now(), to: 0 };
      redisDown.push(w);
      log("Redis: stopping");
      await redis.stop();
      await sleep(REDIS_DOWN_MS);
      await redis.start();
      w.to = Date.now();
      log(`Redis: back after ${((w.to - w.from) / 1000).toFixed(1)} s`);
    })(),
    (async () => {
      await at(0.6);
      const w = { from: Date.now(), to: 0 };
      receiverDown.push(w);
      receiverFailing = true;
      log(`webhook receiver: failing (503) for ${RECEIVER_DOWN_MS / 1000} s`);
      await sleep(RECEIVER_DOWN_MS);
      receiverFailing = false;
      w.to = Date.now();
      log("webhook receiver: answering 200 again");
    })(),
  ];
  while (Date.now() - faultStart < FAULT_MS) {
    await sleep(KILL_EVERY_MS[0] + random() * (KILL_EVERY_MS[1] - KILL_EVERY_MS[0]));
    if (Date.now() - faultStart >= FAULT_MS) break;
    await killOne();
  }
  await Promise.all(scheduled);
  log("faults over; stopping the load");
  await load.stop();
  const loadEnd = Date.now();
  await Promise.all(restarts);
  log(`load stopped; ${cluster.apis.length} APIs and ${cluster.workers.length} workers alive`);

  // Settle: every batch and job terminal, every subscribed event accepted, or time is up.
  const accountIds = Object.values(accounts).map((a) => a.id);
  const settleStart = Date.now();
  let pending = "";
  for (;;) {
    pending = await pendingWork(cluster, accountIds, accepted).catch((e) => `query failed: ${e}`);
    if (!pending) break;
    if (Date.now() - settleStart > SETTLE_MS) break;
    await sleep(2000);
  }
  const settledMs = Date.now() - settleStart;
  clearInterval(watchdog);
  await Promise.all(restarts);
  log(
    pending
      ? `not settled after ${settledMs / 1000} s: ${pending}`
      : `settled in ${(settledMs / 1000).toFixed(1)} s`,
  );

  recorder.markCrashLosses();
  const checks = await checkInvariants({
    db: cluster.pg,
    accountIds,
    promised: load.promised,
    accepted,
    calls: recorder.calls,
    documented,
    postgresDown,
    graceMs: GRACE_MS,
    prices: PRICES,
    restartFailures,
    restartsAsked: restarts.length,
    crashes,
    processesWatched: watched.size,
  });
  const figures = await collectFigures(cluster, accountIds, recorder, {
    kills,
    restarted,
    adhoc,
    accepted: accepted.size,
    received: receiver.received.length,
    loadMs: loadEnd - faultStart,
    settledMs,
  });
  console.log("");
  printFigures(figures);
  console.log("");
  printTable(checks);
  const violations = checks.reduce((n, c) => n + c.violations.length, 0);
  const total = { ...figures, violations, seed: SEED, mode: MODE, durationMs: Date.now() - t0 };
  mkdirSync("test-artifacts", { recursive: true });
  writeFileSync(`test-artifacts/chaos-${MODE}.json`, JSON.stringify({ ...total, checks }, null, 2));
  console.log(
    `\n${violations === 0 ? "PASS" : "FAIL"}: ${violations} violation(s); run took ${((Date.now() - t0) / 1000).toFixed(0)} s (seed ${SEED}; figures in test-artifacts/chaos-${MODE}.json)`,
  );
  saveLogs(cluster, recorder);
  if (violations > 0) dumpErrors(cluster, recorder);
  return violations === 0 ? 0 : 1;
}

/** What is still open, as a short text; "" when everything has settled. */
async function pendingWork(cluster: Cluster, accountIds: string[], accepted: Set<string>): Promise<string> {
  const { rows } = await cluster.pg.query(
    `select
       (select count(*)::int from batches where account_id = any($1) and status = 'processing') as batches,
       (select count(*)::int from validation_jobs where account_id = any($1) and status = 'processing') as jobs,
       (select count(*)::int from leads where account_id = any($1) and validation_status = 'processing') as leads`,
    [accountIds],
  );
  const open = rows[0] as { batches: number; jobs: number; leads: number };
  const hooks = await cluster.pg.query(
    "select account_id, events, created_at from webhooks where account_id = any($1)",
    [accountIds],
  );
  let undelivered = 0;
  for (const h of hooks.rows as { account_id: string; events: string; created_at: string }[]) {
    const events = await cluster.pg.query(
      "select id from events where account_id = $1 and type = any($2) and created_at >= $3",
      [h.account_id, JSON.parse(h.events), h.created_at],
    );
    undelivered += events.rows.filter((e: { id: string }) => !accepted.has(e.id)).length;
  }
  const parts = [
    open.batches ? `${open.batches} batch(es)` : "",
    open.jobs ? `${open.jobs} validation job(s)` : "",
    open.leads ? `${open.leads} lead(s) processing` : "",
    undelivered ? `${undelivered} event(s) not received` : "",
  ].filter(Boolean);
  return parts.join(", ");
}

/** `METHOD /path/{param}` -> documented response statuses, from the service's /openapi.json. */
async function openapiStatuses(api: ClusterNode): Promise<Map<string, Set<string>>> {
  const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  };
  const out = new Map<string, Set<string>>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      out.set(`${method.toUpperCase()} ${path}`, new Set(Object.keys(op.responses ?? {})));
    }
  }
  return out;
}

interface Figures {
  [key: string]: unknown;
}

async function collectFigures(
  cluster: Cluster,
  accountIds: string[],
  recorder: Recorder,
  extra: {
    kills: { kind: string }[];
    restarted: number;
    adhoc: number;
    accepted: number;
    received: number;
    loadMs: number;
    settledMs: number;
  },
): Promise<Figures> {
  const q = async (sql: string) =>
    (await cluster.pg.query(sql, [accountIds])).rows as Record<string, string | number>[];
  const group = (rows: Record<string, string | number>[]) =>
    Object.fromEntries(rows.map((r) => [String(r.k), Number(r.n)]));
  const statuses: Record<string, number> = {};
  for (const c of recorder.calls) {
    const k =
      c.status === undefined
        ? c.nodeKilled
          ? "lost (process killed)"
          : `no answer: ${c.error}`
        : String(c.status);
    statuses[k] = (statuses[k] ?? 0) + 1;
  }
  const pgboss = await cluster.pg
    .query("select name || ':' || state as k, count(*)::int as n from pgboss.job group by 1 order by 1")
    .then((r) => group(r.rows));
  return {
    loadSeconds: Math.round(extra.loadMs / 1000),
    settleSeconds: Math.round(extra.settledMs / 1000),
    processesKilled: extra.kills.length,
    apisKilled: extra.kills.filter((k) => k.kind === "api").length,
    workersKilled: extra.kills.filter((k) => k.kind === "worker").length,
    processesRestarted: extra.restarted,
    requests: recorder.calls.length,
    requestsByStatus: statuses,
    batches: group(
      await q(
        "select kind || ':' || status as k, count(*)::int as n from batches where account_id = any($1) group by 1",
      ),
    ),
    validationJobs: group(
      await q(
        "select status as k, count(*)::int as n from validation_jobs where account_id = any($1) group by 1",
      ),
    ),
    leads: group(
      await q(
        "select validation_status as k, count(*)::int as n from leads where account_id = any($1) group by 1",
      ),
    ),
    pgBossJobs: pgboss,
    events: group(
      await q("select type as k, count(*)::int as n from events where account_id = any($1) group by 1"),
    ),
    deliveries: group(
      await q(
        "select status as k, count(*)::int as n from webhook_deliveries where account_id = any($1) group by 1",
      ),
    ),
    // Work only the sweeper closed: a job lost in a way no onExhausted hook saw (should be 0).
    sweeperClosed: allNodes(cluster, recorder)
      .map(
        (node) =>
          node.proc
            .output()
            .split("\n")
            .filter((l) => l.includes(SWEEPER_CLOSED_LOG)).length,
      )
      .reduce((a, b) => a + b, 0),
    receiverRequests: extra.received,
    eventsAccepted: extra.accepted,
    adhocCallbacks: extra.adhoc,
  };
}

function printFigures(f: Figures): void {
  for (const [k, v] of Object.entries(f)) {
    console.log(`${k.padEnd(20)} ${typeof v === "object" ? JSON.stringify(v) : String(v)}`);
  }
}

const allNodes = (cluster: Cluster, recorder: Recorder) => [
  ...cluster.apis,
  ...cluster.workers,
  ...recorder.killedAt.keys(),
  ...recorder.crashedAt.keys(),
];

/** Every process's output, killed ones included, under test-artifacts/chaos-logs/. */
function saveLogs(cluster: Cluster, recorder: Recorder): void {
  const dir = `test-artifacts/chaos-logs-${MODE}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const node of allNodes(cluster, recorder)) {
    const killed = recorder.killedAt.has(node) ? "-killed" : recorder.crashedAt.has(node) ? "-crashed" : "";
    writeFileSync(`${dir}/${node.kind}-${node.port}${killed}.log`, node.proc.output());
  }
}

/** The processes' own error lines, to diagnose a violation. */
function dumpErrors(cluster: Cluster, recorder: Recorder): void {
  for (const node of allNodes(cluster, recorder)) {
    const lines = node.proc
      .output()
      .split("\n")
      .filter((l) => /"level":(50|60)/.test(l));
    if (lines.length === 0) continue;
    console.log(`\n${node.kind} :${node.port}: ${lines.length} error line(s), last 5:`);
    for (const l of lines.slice(-5)) console.log(`  ${l.slice(0, 400)}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(2);
  },
);
