// A scale-out deployment on this machine: `leadcheck serve --no-worker` API processes and
// `leadcheck worker` processes, all real subprocesses on one fresh PostgreSQL database and the
// machine's Redis, pointed at a local fake internet. Processes can be added, SIGKILLed and
// SIGTERMed like a process manager would; their /metrics tell which worker holds which job.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { loadConfig } from "../../src/config/config.js";
import { createServices, startQueue } from "../../src/main.js";
import { createEmptyDatabase } from "../support/db.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { TEST_ADMIN_TOKEN, TEST_JWT_SECRET, testToken } from "../support/harness.js";
import { freePort, type Proc, startProcess } from "../support/process.js";
import { REDIS_TEST_URL } from "../support/services.js";
import { waitFor } from "../support/wait-for.js";

export interface ClusterNode {
  kind: "api" | "worker";
  port: number;
  url: string;
  proc: Proc;
}

export interface Cluster {
  fake: FakeInternet;
  databaseUrl: string;
  /** A small pool of the test's own, for assertions on what the processes wrote. */
  pg: pg.Pool;
  apis: ClusterNode[];
  /** Workers currently alive (killed ones are removed). */
  workers: ClusterNode[];
  startApi(extraEnv?: Record<string, string>): Promise<ClusterNode>;
  startWorker(extraEnv?: Record<string, string>): Promise<ClusterNode>;
  /** SIGKILL: no shutdown code runs, as when a machine dies. */
  kill(node: ClusterNode): Promise<void>;
  token(accountId: string): Promise<string>;
  apiKey(accountId: string, api?: ClusterNode): Promise<{ key: string; keyId: string }>;
  grant(accountId: string, credits: number): Promise<void>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  apis: number;
  workers: number;
  env?: Record<string, string>;
  apiEnv?: Record<string, string>;
  workerEnv?: Record<string, string>;
  /** Another PostgreSQL server than the machine's (the chaos run restarts its own). */
  pgAdminUrl?: string;
  /** Another Redis than the machine's. */
  redisUrl?: string;
  /** How long a starting process may take to turn ready (default 90 s). */
  readyTimeoutMs?: number;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const fake = await startFakeInternet({
    "slow.test": { MX: [{ exchange: "mx.slow.test", priority: 10 }] },
    "mx.slow.test": { A: ["127.0.0.5"] },
  });
  const dir = mkdtempSync(join(tmpdir(), "leadcheck-scale-"));
  const caFile = join(dir, "test-ca.pem");
  writeFileSync(caFile, fake.ca);
  const empty = await createEmptyDatabase("postgres", options.pgAdminUrl);
  const pool = new pg.Pool({ connectionString: empty.url, max: 3 });
  let isDropping = false;
  // pool.end() resolves while its idle connections are still closing; the database's DROP ... WITH
  // (FORCE) at cleanup may then terminate one, which reports it as an error nothing waits for.
  pool.on("error", (error) => {
    if (!isDropping) throw error;
  });

  const env: Record<string, string> = {
    ...fake.env,
    NODE_EXTRA_CA_CERTS: caFile,
    DATABASE_URL: empty.url,
    DATABASE_POOL_MAX: "8",
    PGBOSS_MAX_CONNECTIONS: "3",
    REDIS_URL: options.redisUrl ?? REDIS_TEST_URL,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    NEW_ACCOUNT_MILLI_CREDITS: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    JOB_POLL_INTERVAL_MS: "100",
    JOB_MAINTENANCE_INTERVAL_MS: "1000",
    ...options.env,
  };
  // Migrate and create the job queues once, as a deploy's migration step does; the processes
  // then start on a prepared database (test/scale/queue-startup.test.ts covers a cold start).
  const prepared = await createServices(loadConfig({ ...env, LOG_LEVEL: "silent" }));
  await startQueue(prepared);
  await prepared.close();
  const all: ClusterNode[] = [];
  const apis: ClusterNode[] = [];
  const workers: ClusterNode[] = [];

  async function start(kind: ClusterNode["kind"], extraEnv: Record<string, string>): Promise<ClusterNode> {
    const port = await freePort();
    const args = kind === "api" ? ["serve", "--no-worker"] : ["worker"];
    const portEnv: Record<string, string> = { [kind === "api" ? "PORT" : "WORKER_PORT"]: String(port) };
    const proc = startProcess(args, { ...env, ...extraEnv, ...portEnv });
    const node: ClusterNode = { kind, port, url: `http://127.0.0.1:${port}`, proc };
    all.push(node);
    try {
      await waitReady(node, options.readyTimeoutMs);
    } catch (error) {
      // Not ready in time: do not leave it running outside the lists.
      if (proc.child.exitCode === null) proc.child.kill("SIGKILL");
      throw error;
    }
    (kind === "api" ? apis : workers).push(node);
    return node;
  }

  const startApi = (extra: Record<string, string> = {}) => start("api", { ...options.apiEnv, ...extra });
  const startWorker = (extra: Record<string, string> = {}) =>
    start("worker", { ...options.workerEnv, ...extra });

  const cleanup = async () => {
    for (const node of all) if (node.proc.child.exitCode === null) node.proc.child.kill("SIGKILL");
    await Promise.all(all.map((n) => n.proc.exitCode()));
    await pool.end();
    isDropping = true;
    await empty.drop();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all([
      ...Array.from({ length: options.apis }, () => startApi()),
      ...Array.from({ length: options.workers }, () => startWorker()),
    ]);
  } catch (error) {
    await cleanup();
    throw error;
  }

  const token = testToken;

  return {
    fake,
    databaseUrl: empty.url,
    pg: pool,
    apis,
    workers,
    startApi,
    startWorker,
    async kill(node) {
      node.proc.child.kill("SIGKILL");
      await node.proc.exitCode();
      const list = node.kind === "api" ? apis : workers;
      const at = list.indexOf(node);
      if (at >= 0) list.splice(at, 1);
    },
    token,
    async apiKey(accountId, api = apis[0]!) {
      const res = await fetch(`${api.url}/v1/auth/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${await token(accountId)}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "scale test" }),
      });
      if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { api_key: string; key_id: string };
      return { key: body.api_key, keyId: body.key_id };
    },
    async grant(accountId, credits) {
      const res = await fetch(`${apis[0]!.url}/v1/admin/accounts/${accountId}/credits`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ credits, reason: "scale test" }),
      });
      if (!res.ok) throw new Error(`grant failed: ${res.status} ${await res.text()}`);
    },
    close: cleanup,
  };
}

/** Ready on /readiness; a 2-core machine starting several processes at once needs a while. */
async function waitReady(node: ClusterNode, timeoutMs = 90_000): Promise<void> {
  let last = "";
  const state = await waitFor(
    async () => {
      if (node.proc.child.exitCode !== null) return "exited";
      const res = await fetch(`${node.url}/readiness`).catch((error) => {
        last = String(error?.cause?.code ?? error);
        return undefined;
      });
      if (res) last = `${res.status} ${await res.text()}`;
      return res?.ok ? "ready" : undefined;
    },
    `the ${node.kind} on :${node.port} to be ready`,
    timeoutMs,
    100,
  ).catch(() => {
    throw new Error(
      `the ${node.kind} on :${node.port} is not ready (${last}): ${node.proc.output().slice(-500)}`,
    );
  });
  if (state === "exited") throw new Error(`the ${node.kind} on :${node.port} exited: ${node.proc.output()}`);
}

/** Sum of a metric's samples whose labels include `labels`, from Prometheus text. */
export function sampleSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const open = line.indexOf("{");
    const labelText =
      open >= 0 && open < line.indexOf(" ") ? line.slice(open, line.lastIndexOf("}") + 1) : "";
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) {
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return sum;
}

export async function scrape(node: ClusterNode): Promise<string> {
  const res = await fetch(`${node.url}/metrics`);
  if (!res.ok) throw new Error(`/metrics on ${node.url}: ${res.status}`);
  return res.text();
}

/** The worker whose process is running a job of `queue` right now. */
export async function workerRunning(
  cluster: Cluster,
  queue: string,
  timeoutMs = 90_000, // a replacement worker starting on a loaded CI machine can take most of a minute
): Promise<ClusterNode> {
  return waitFor(
    async () => {
      for (const worker of cluster.workers) {
        const text = await scrape(worker).catch(() => "");
        if (sampleSum(text, "leadcheck_jobs_running", { queue }) > 0) return worker;
      }
      return undefined;
    },
    `a worker running ${queue}`,
    timeoutMs,
    50,
  );
}
