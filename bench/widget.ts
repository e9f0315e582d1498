// npm run bench:widget — POST /v1/widget/check-email for addresses whose answer is known without a
// probe (a typo, a disposable domain, a recent result), next to a bare Fastify POST in the same
// run. Phase 1 holds 200 requests/s and reports p50/p95/p99 (the target: p95 < 25 ms);
// phase 2 runs both flat out and reports the widget's throughput as a share of bare (target >= 0.5).
// Each server runs in a child process on 127.0.0.1 (SQLite, in-memory counters); the widget's
// child primes the recent result against the loopback fake internet first. Each run also reports
// the server process's CPU time per request (process.cpuUsage over the run), a figure a loaded
// machine changes far less than throughput. Also reports widget.js's gzipped size.
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import Fastify from "fastify";
import { loadConfig } from "../src/config/config.js";
import { buildHttpApp, createServices, startQueue } from "../src/main.js";
import { createEmptyDatabase } from "../test/support/db.js";
import { startFakeInternet } from "../test/support/fake-internet.js";
import { TEST_JWT_SECRET, testToken } from "../test/support/harness.js";

const RATE = Number(process.env.BENCH_RATE ?? 200);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ORIGIN = "https://shop.example.com";
const BODIES = ["jane@gmial.com", "temp@mailinator.com", "alice@acme.test"].map((email) =>
  JSON.stringify({ email }),
);

/** Publishable keys the widget's load is spread over (see serveApp). */
const KEYS = Number(process.env.BENCH_WIDGET_KEYS ?? 8);

const self = fileURLToPath(import.meta.url);
/** BENCH_PROFILE_DIR: each server writes a V8 CPU profile of its flat-out run there. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;

/** Answers the parent's "cpu" message with this process's CPU time so far (µs, user + system):
 *  CPU per request is a figure the machine's load does not change much, unlike throughput. */
function answerCpuQueries(): void {
  let profiler: Session | undefined;
  process.on("message", async (message) => {
    if (message === "cpu") {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpuUs: user + system });
    } else if (message === "profile-start" && PROFILE_DIR) {
      profiler = new Session();
      profiler.connect();
      await profiler.post("Profiler.enable");
      await profiler.post("Profiler.start");
    } else if (message === "profile-stop" && profiler && PROFILE_DIR) {
      const { profile } = await profiler.post("Profiler.stop");
      mkdirSync(PROFILE_DIR, { recursive: true });
      writeFileSync(`${PROFILE_DIR}/${process.argv[2]}-${Date.now()}.cpuprofile`, JSON.stringify(profile));
      process.send?.({ profiled: true });
    }
  });
}

async function serveBare(): Promise<void> {
  const app = Fastify({ logger: false });
  app.post("/check", async () => ({
    status: "risky",
    reason: "typo",
    didYouMean: "jane@gmail.com",
    disposable: false,
    role: false,
    free: false,
    token: "x".repeat(300),
  }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  answerCpuQueries();
  process.send?.({ port: (app.server.address() as { port: number }).port, paths: ["/check"], headers: {} });
}

async function serveApp(): Promise<void> {
  const fake = await startFakeInternet();
  const db = await createEmptyDatabase("sqlite");
  const config = loadConfig({
    ...fake.env,
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    DATABASE_URL: db.url,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    WIDGET_TOKEN_SECRET: "bench-widget-token-secret-0123456789abcdef",
    DOMAIN_INTEL: "false",
  });
  const services = await createServices(config);
  await startQueue(services);
  const app = await buildHttpApp(services);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as { port: number }).port;
  // The load comes from one IP at up to ~15,000 requests a second, past any key's per-visitor
  // ceiling (100,000 a minute): it is spread over KEYS keys, as a form's traffic is over many
  // visitors, so every answer measured is a check, not a 429 (the report counts statuses).
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const created = await app.inject({
      method: "POST",
      url: "/v1/auth/keys",
      headers: { authorization: `Bearer ${await testToken("acct_bench")}` },
      payload: {
        name: `bench ${i}`,
        type: "publishable",
        allowedOrigins: [ORIGIN],
        widget: { perIpPerMinute: 100_000, perEmailPerMinute: 100_000, distinctEmailsPerIpPerDay: 100_000 },
      },
    });
    keys.push(created.json().api_key as string);
  }
  // Prime the recent result through every key: the first look probes the fake mail server, later
  // ones reuse it.
  for (const pk of keys) {
    for (let i = 0; i < 50; i++) {
      const res = await app.inject({
        method: "POST",
        url: `/v1/widget/check-email?key=${pk}`,
        headers: { origin: ORIGIN },
        payload: { email: "alice@acme.test" },
      });
      if (res.json().status === "valid") break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  answerCpuQueries();
  process.send?.({
    port,
    paths: keys.map((key) => `/v1/widget/check-email?key=${key}`),
    headers: { origin: ORIGIN },
  });
}

interface Target {
  port: number;
  /** Requests rotate over these paths (the widget's: one per key). */
  paths: string[];
  headers: Record<string, string>;
}

interface Server {
  child: ChildProcess;
  target: Target;
}

/** The app's first module, loaded before the TypeScript loader as bin/leadcheck.mjs loads it (ADR 0057). */
const SEED = new URL("../src/lib/object-shapes.mjs", import.meta.url).href;

function start(kind: "bare" | "app"): Promise<Server> {
  const child = fork(self, [kind], {
    execArgv: [...(kind === "app" ? ["--import", SEED] : []), "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return once(child, "message").then(([target]) => ({ child, target: target as Target }));
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function cpuUsOf(child: ChildProcess): Promise<number> {
  const answer = once(child, "message");
  child.send("cpu");
  return ((await answer)[0] as { cpuUs: number }).cpuUs;
}

async function run(server: Server, rate: number | undefined) {
  const { target } = server;
  const cpuBefore = await cpuUsOf(server.child);
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${target.port}`,
        connections: CONNECTIONS,
        duration: DURATION_S,
        ...(rate ? { overallRate: rate } : {}),
        requests: target.paths.flatMap((path) =>
          BODIES.map((body) => ({
            method: "POST" as const,
            path,
            headers: { ...target.headers, "content-type": "application/json" },
            body,
          })),
        ),
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on("response", (_client, statusCode, _bytes, responseTimeMs) => {
      latencies.push(responseTimeMs);
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
    });
  });
  const cpuUs = (await cpuUsOf(server.child)) - cpuBefore;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    /** The server process's CPU time per answered request (µs). */
    serverCpuUsPerRequest: Math.round(cpuUs / Math.max(1, latencies.length)),
    p50Ms: +percentile(latencies, 50).toFixed(2),
    p95Ms: +percentile(latencies, 95).toFixed(2),
    p99Ms: +percentile(latencies, 99).toFixed(2),
    statuses: Object.fromEntries(statuses),
  };
}

/** A flat-out run, profiled when BENCH_PROFILE_DIR is set. */
async function profiled(server: Server) {
  if (PROFILE_DIR) server.child.send("profile-start");
  const result = await run(server, undefined);
  if (PROFILE_DIR) {
    const written = once(server.child, "message");
    server.child.send("profile-stop");
    await written;
  }
  return result;
}

async function main(): Promise<void> {
  const bare = await start("bare");
  const widget = await start("app");
  try {
    await run(widget, undefined); // warm-up
    const paced = { widget: await run(widget, RATE), bare: await run(bare, RATE) };
    const flat = { widget: await profiled(widget), bare: await profiled(bare) };
    const script = readFileSync(new URL("../src/widget/widget.js", import.meta.url));
    const report = {
      at: new Date().toISOString(),
      cpus: cpus().length,
      rateRps: RATE,
      durationS: DURATION_S,
      connections: CONNECTIONS,
      paced,
      flatOut: flat,
      throughputShareOfBare: +(flat.widget.requestsPerSecond / flat.bare.requestsPerSecond).toFixed(2),
      /** Bare CPU per request over the widget's: the throughput share the machine's load leaves alone. */
      cpuShareOfBare: +(flat.bare.serverCpuUsPerRequest / flat.widget.serverCpuUsPerRequest).toFixed(2),
      widgetJs: { bytes: script.length, gzippedBytes: gzipSync(script, { level: 9 }).length },
    };
    console.log(JSON.stringify(report, null, 2));
    mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
    writeFileSync(
      new URL(`./results/widget-${Date.now()}.json`, import.meta.url),
      `${JSON.stringify(report, null, 2)}\n`,
    );
  } finally {
    bare.child.kill();
    widget.child.kill();
  }
}

const mode = process.argv[2] ?? "main";
if (mode === "bare") await serveBare();
else if (mode === "app") await serveApp();
else await main();
