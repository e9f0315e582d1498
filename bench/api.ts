// npm run bench:api — autocannon against the API's hot paths, authenticated and rate limited
// (limits raised by env so nothing is refused), next to a bare Fastify server measured in the
// same run: GET /v1/leads/{id} against a hello-world GET, POST /v1/leads (validate: false)
// against a bare JSON POST. Each server runs in its own child process and the rounds interleave them;
// autocannon runs here, and the median round of each is reported. A calibration run beside them
// (BENCH_WORK_US, 40 by default) is the bare hello world after that much CPU per request: it shows
// what ratio to bare a fixed cost per request allows on this machine.
// SQLite uses in-memory rate-limit counters; PostgreSQL uses Redis, as a scale-out deployment
// does. Everything listens on 127.0.0.1.
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import autocannon from "autocannon";
import Fastify from "fastify";
import { loadConfig } from "../src/config/config.js";
import { buildHttpApp, createServices, startQueue } from "../src/main.js";
import { createEmptyDatabase } from "../test/support/db.js";
import { PG_ADMIN_URL, REDIS_TEST_URL } from "../test/support/services.js";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 2);
/** Request logs cost as much as the request; production runs at info, so can the benchmark. */
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? "warn";
/** BENCH_ONLY=read|write and BENCH_DATABASES=sqlite|postgres narrow a run (for profiling). */
const KINDS = (process.env.BENCH_ONLY ?? "read,write").split(",");
const DATABASES = (process.env.BENCH_DATABASES ?? "sqlite,postgres").split(",");
/** Every created lead needs an email of its own, over all rounds. */
let leadSerial = 0;
/** Runs per server, interleaved; the median is reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** CPU per request of the calibration route beside bare (0: no calibration run). */
const WORK_US = Number(process.env.BENCH_WORK_US ?? 40);
/**
 * BENCH_PEER=DIR: another checkout of leadcheck (its dependencies installed), e.g. the commit
 * before a change. Its service runs beside ours on a database of its own, in the same rounds, and
 * the report adds ours against it per round (a before/after that the machine's load cannot skew).
 * The peer's bench/api.ts must speak this file's parent protocol (unchanged since round 1).
 */
const PEER = process.env.BENCH_PEER;
const PEER_LABEL = "peer";

interface Target {
  port: number;
  /** Headers every request carries (the API key). */
  headers: Record<string, string>;
  readPath: string;
  writePath: string;
}

interface Figures {
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU time per request: unlike req/s, barely moved by the machine's other load. */
  cpuUsPerRequest: number;
  /** The part of it spent in the kernel (socket writes and reads, SQLite's file locks). */
  kernelUsPerRequest: number;
  errors: number;
}

const self = fileURLToPath(import.meta.url);
const mode = process.argv[2] ?? "main";
if (mode === "bare") await serveBare();
else if (mode === "app") await serveApp(process.argv[3] ?? "");
else await main();

/** Child: hello world on plain Fastify, with a JSON POST of the same shape as lead creation. */
async function serveBare(): Promise<void> {
  const app = Fastify({ logger: false });
  app.get("/hello", async () => ({ hello: "world" }));
  // Hello world after spinning WORK_US of CPU: how far a fixed cost per request moves the ratio
  // to bare on this machine, measured beside the service.
  app.get("/work", async () => {
    const until = performance.now() + WORK_US / 1000;
    while (performance.now() < until);
    return { hello: "world" };
  });
  app.post("/echo", async (request, reply) =>
    reply.status(201).send({ id: "lead_1", ...(request.body as object) }),
  );
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as { port: number }).port;
  serveParent({ port, headers: {}, readPath: "/hello", writePath: "/echo" }, async () => {});
}

/** Child: the real service (auth, rate limits, metrics, logging at LOG_LEVEL) on one database. */
async function serveApp(databaseUrl: string): Promise<void> {
  const isPostgres = databaseUrl.startsWith("postgres");
  const config = loadConfig({
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    LOG_LEVEL,
    // As production runs: with the secret key set, lead creation asks the erasure tombstones
    // whether the address was erased (re-import suppression, issue 25).
    LEADCHECK_SECRET_KEY: "bench-secret-key-bench-secret-key-0123456789",
    RATE_LIMIT_PER_MINUTE: "1000000000",
    RATE_LIMIT_PER_HOUR: "1000000000",
    RATE_LIMIT_ENDPOINTS: "GET /v1/leads/:leadId=1000000000,POST /v1/leads=1000000000",
    ...(isPostgres ? { REDIS_URL: REDIS_TEST_URL } : {}),
  });
  const services = await createServices(config);
  await startQueue(services);
  const app = await buildHttpApp(services, services.logger);
  await app.listen({ port: 0, host: "127.0.0.1" });
  await services.credits.ensureAccount("bench");
  const { api_key } = await services.keys.create("bench", "bench", null);
  const lead = await services.leads.create("bench", { email: "first@bench.test", validate: false });
  const port = (app.server.address() as { port: number }).port;
  const target: Target = {
    port,
    headers: { "x-api-key": api_key },
    readPath: `/v1/leads/${lead.id}`,
    writePath: "/v1/leads",
  };
  serveParent(target, await startProfile());
}

/** Tells the parent where to aim, answers its CPU-time questions, exits when it lets go. */
function serveParent(target: Target, beforeExit: () => Promise<void>): void {
  process.on("message", (message) => {
    if (message === "cpu") process.send!(process.cpuUsage());
  });
  process.on("disconnect", async () => {
    await beforeExit();
    process.exit(0);
  });
  process.send!(target);
}

/** BENCH_CPU_PROFILE=file: a CPU profile of the app child while it serves (for DevTools). */
async function startProfile(): Promise<() => Promise<void>> {
  const file = process.env.BENCH_CPU_PROFILE;
  if (!file) return async () => {};
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(`${file}.${process.pid}.cpuprofile`, JSON.stringify(profile));
  };
}

interface Server {
  child: ChildProcess;
  target: Target;
  /** CPU time the server process has used so far. */
  cpuUsage(): Promise<NodeJS.CpuUsage>;
  stop(): Promise<void>;
}

/** A tree's own first module, loaded before the TypeScript loader as bin/leadcheck.mjs loads it
 *  (ADR 0057); trees from before it have none. */
function seedOf(tree: string | undefined): string[] {
  const seed = join(tree ?? join(dirname(self), ".."), "src", "lib", "object-shapes.mjs");
  return existsSync(seed) ? ["--import", pathToFileURL(seed).href] : [];
}

async function start(args: string[], tree?: string): Promise<Server> {
  const child = fork(tree ? join(tree, "bench", "api.ts") : self, args, {
    execArgv: [
      ...seedOf(tree),
      "--import",
      "tsx",
      ...(process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean),
    ],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    ...(tree ? { cwd: tree } : {}),
  });
  const [target] = (await once(child, "message")) as [Target];
  return {
    child,
    target,
    async cpuUsage() {
      child.send("cpu");
      const [usage] = (await once(child, "message")) as [NodeJS.CpuUsage];
      return usage;
    },
    async stop() {
      child.disconnect();
      await once(child, "exit");
    },
  };
}

/** One measured run: a server, a kind of request, and the path it goes to. */
interface Run {
  name: string;
  server: Server;
  kind: "read" | "write";
  path: string;
}

async function cannon({ name: label, server, kind, path }: Run): Promise<Figures> {
  const { target } = server;
  const run = (durationS: number) =>
    autocannon({
      url: `http://127.0.0.1:${target.port}`,
      connections: CONNECTIONS,
      duration: durationS,
      headers: { ...target.headers, "content-type": "application/json" },
      requests: [
        kind === "read"
          ? { method: "GET", path }
          : {
              method: "POST",
              path,
              // Every lead needs an email of its own (duplicates are refused).
              setupRequest: (request) => ({
                ...request,
                body: JSON.stringify({
                  email: `b${leadSerial++}@bench.test`,
                  firstName: "Bench",
                  company: "Bench Inc.",
                  validate: false,
                }),
              }),
            },
      ],
    });
  await run(WARMUP_S);
  const cpuBefore = await server.cpuUsage();
  const result = await run(DURATION_S);
  const cpuAfter = await server.cpuUsage();
  const requests = Math.max(1, result.requests.total);
  return {
    label,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuUsPerRequest: (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / requests,
    kernelUsPerRequest: (cpuAfter.system - cpuBefore.system) / requests,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/** Each server's runs in order; the median run of each label is reported. */
function median(runs: Figures[]): Figures {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  console.log(
    `bench:api  ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s per run after ${WARMUP_S} s ` +
      `warm-up, LOG_LEVEL=${LOG_LEVEL}, ${cpus().length} CPUs, load average ${load}`,
  );
  const dir = mkdtempSync(join(tmpdir(), "leadcheck-bench-"));
  const pgDb = DATABASES.includes("postgres")
    ? await createEmptyDatabase("postgres").catch(() => undefined)
    : undefined;
  const peerPgDb = pgDb && PEER ? await createEmptyDatabase("postgres") : undefined;
  if (DATABASES.includes("postgres") && !pgDb)
    console.log(`PostgreSQL at ${PG_ADMIN_URL} not reachable: skipped`);
  // All servers start first and idle while another is measured; the rounds interleave them, so
  // that a change in the machine's other load falls on every server alike.
  const servers: Server[] = [];
  try {
    const bare = await start(["bare"]);
    servers.push(bare);
    const plan: Run[] = [
      { name: "bare Fastify GET /hello", server: bare, kind: "read", path: "/hello" },
      { name: "bare Fastify POST /echo", server: bare, kind: "write", path: "/echo" },
    ];
    if (WORK_US > 0)
      plan.push({ name: `bare Fastify + ${WORK_US} µs CPU GET`, server: bare, kind: "read", path: "/work" });
    const apps: [label: string, url: string, tree?: string][] = [];
    if (DATABASES.includes("sqlite")) apps.push(["SQLite", `sqlite:${join(dir, "bench.db")}`]);
    if (PEER && DATABASES.includes("sqlite"))
      apps.push([`${PEER_LABEL} SQLite`, `sqlite:${join(dir, "peer.db")}`, PEER]);
    if (pgDb) apps.push(["PostgreSQL+Redis", pgDb.url]);
    if (PEER && peerPgDb) apps.push([`${PEER_LABEL} PostgreSQL+Redis`, peerPgDb.url, PEER]);
    for (const [label, url, tree] of apps) {
      const server = await start(["app", url], tree);
      servers.push(server);
      const { readPath, writePath } = server.target;
      plan.push({ name: `${label} GET /v1/leads/{id}`, server, kind: "read", path: readPath });
      plan.push({ name: `${label} POST /v1/leads`, server, kind: "write", path: writePath });
    }
    const runs = new Map<string, Figures[]>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const kind of ["read", "write"] as const) {
        if (!KINDS.includes(kind)) continue;
        for (const run of plan.filter((r) => r.kind === kind)) {
          const figures = await cannon(run);
          runs.set(run.name, [...(runs.get(run.name) ?? []), figures]);
          console.log(
            `  round ${round} ${run.name.padEnd(38)} ${figures.requestsPerSecond.toFixed(0).padStart(7)} req/s`,
          );
        }
      }
    }
    const rows = [...runs.values()].map(median);
    print(rows);
    if (PEER) printAgainstPeer(runs);
  } finally {
    for (const server of servers) await server.stop();
    await pgDb?.drop();
    await peerPgDb?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Ours against the peer's, run by run: the median of the per-round ratios, and their range. */
function printAgainstPeer(runs: Map<string, Figures[]>): void {
  console.log(`\nagainst the peer (${PEER}), per round: ours / peer's, median [lowest, highest]`);
  console.log(`${"run".padEnd(36)}${["req/s", "CPU µs/req"].map((c) => c.padStart(26)).join("")}`);
  const spread = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted[Math.floor(sorted.length / 2)]!;
    return `${mid.toFixed(2)} [${sorted[0]!.toFixed(2)}, ${sorted.at(-1)!.toFixed(2)}]`.padStart(26);
  };
  for (const [name, ours] of runs) {
    const peer = runs.get(`${PEER_LABEL} ${name}`);
    if (!peer) continue;
    const rps = ours.map((r, i) => r.requestsPerSecond / peer[i]!.requestsPerSecond);
    const cpu = ours.map((r, i) => r.cpuUsPerRequest / peer[i]!.cpuUsPerRequest);
    console.log(`${name.padEnd(36)}${spread(rps)}${spread(cpu)}`);
  }
}

function print(rows: Figures[]): void {
  const bareRead = rows.find((r) => r.label.endsWith("GET /hello"));
  const bareWrite = rows.find((r) => r.label.endsWith("POST /echo"));
  const num = (v: number, width: number, digits = 0) => v.toFixed(digits).padStart(width);
  const columns = ["req/s", "p50 ms", "p99 ms", "vs bare", "CPU µs/req", "kernel µs", "errors"];
  console.log(`\n${"run".padEnd(36)}${columns.map((c) => c.padStart(11)).join("")}`);
  for (const r of rows) {
    const baseline = r.label.includes("GET") ? bareRead : bareWrite;
    const cells = [
      num(r.requestsPerSecond, 11),
      num(r.p50Ms, 11),
      num(r.p99Ms, 11),
      baseline ? num(r.requestsPerSecond / baseline.requestsPerSecond, 11, 2) : "n/a".padStart(11),
      num(r.cpuUsPerRequest, 11),
      num(r.kernelUsPerRequest, 11),
      num(r.errors, 11),
    ];
    console.log(`${r.label.padEnd(36)}${cells.join("")}`);
  }
  if (!bareRead) return;
  for (const r of rows.filter((row) => row.label.includes("/v1/leads/{id}"))) {
    const ratio = r.requestsPerSecond / bareRead.requestsPerSecond;
    const ratioMet = ratio >= 0.4 ? "met" : "MISSED";
    const p99Met = r.p99Ms < 20 ? "met" : "MISSED";
    console.log(
      `target ${r.label}: ${ratio.toFixed(2)} of bare (>= 0.40 ${ratioMet}), p99 ${r.p99Ms} ms (< 20 ${p99Met})`,
    );
  }
}
