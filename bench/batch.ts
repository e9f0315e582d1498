// Lead batch validation end to end: N leads over 200 domains are bulk-created with validation and
// run by the worker to completion, against local fake DNS, SMTP, HTTPS and RDAP servers that add
// ~20 ms to every reply, on SQLite and on PostgreSQL. 10,000 and 20,000 leads show how cost grows;
// each batch runs with domain intelligence off (the baseline) and on (RDAP, DNS block lists, SPF
// and DMARC), and the RDAP and block-list queries the fake servers received are counted.
//   npm run bench:batch      (BENCH_SIZES=10000,20000 BENCH_DIALECTS=sqlite,postgres BENCH_INTEL=off,on
//                             BENCH_REPEAT=3: interleaved repeats, ratios of the median runs)
// The fake internet runs in a child process so the RSS figures are the service's alone.
// BENCH_PEER=DIR: another checkout of leadcheck (its dependencies installed), e.g. the commit
// before a change. Each batch also runs on its service, in the same rounds against the same fake
// internet, and the report adds ours against it per round. The peer's src must export what the
// runner uses (createServices and startQueue in src/main.ts, registerWorkers in src/worker.ts,
// services.leads.bulk and services.batches.get), as every version since round 1 does; a peer
// without domain intelligence runs its "on" batches without it.
import { fork } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createEmptyDatabase } from "../test/support/db.js";
import type { Zone } from "../test/support/dns-server.js";

const PEER = process.env.BENCH_PEER;

const DOMAINS = 200;
const MX_HOSTS = 20;
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 20);
const SIZES = (process.env.BENCH_SIZES ?? "10000,20000").split(",").map(Number);
const DIALECTS = (process.env.BENCH_DIALECTS ?? "sqlite,postgres").split(",") as ("sqlite" | "postgres")[];
const INTEL = (process.env.BENCH_INTEL ?? "off,on").split(",") as ("off" | "on")[];
/** Interleaved runs of each setting; the ratios use each setting's median wall time. */
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);

// Each company is its own registrable domain, so domain intelligence has 200 domains to look up.
const domain = (i: number) => `co${i}.test`;
const DBL_ZONE = "dbl.spamhaus.org";
const ZEN_ZONE = "zen.spamhaus.org";
const mxIp = (m: number) => `127.0.2.${m + 1}`;

interface NetInfo {
  env: Record<string, string>;
  ca: string;
}

async function serveFakeInternet(): Promise<void> {
  const { startDnsServer } = await import("../test/support/dns-server.js");
  const { startSmtpServer } = await import("../test/support/smtp-server.js");
  const { startSites } = await import("../test/support/http-servers.js");
  const { createTestPki } = await import("../test/support/test-ca.js");
  const { startRdapServer } = await import("../test/support/rdap-server.js");
  const maxPerDomain = Math.ceil(Math.max(...SIZES) / DOMAINS);
  const zone: Zone = {};
  const hosts: Record<string, { mailboxes: string[]; replyDelayMs: number }> = {};
  for (let m = 0; m < MX_HOSTS; m++) hosts[mxIp(m)] = { mailboxes: [], replyDelayMs: DELAY_MS };
  const sites: Record<string, { body: string; delayMs: number }> = {};
  for (let i = 0; i < DOMAINS; i++) {
    const m = i % MX_HOSTS;
    zone[domain(i)] = {
      A: ["127.0.0.1"],
      MX: [{ exchange: `mx${m}.bench.test`, priority: 10 }],
      TXT: i % 4 === 0 ? [] : ["v=spf1 mx ~all"],
      ttl: 3600,
    };
    if (i % 3 === 0) zone[`_dmarc.${domain(i)}`] = { TXT: ["v=DMARC1; p=none"], ttl: 3600 };
    // One company in ten is on the domain block list.
    if (i % 10 === 0) zone[`${domain(i)}.${DBL_ZONE}`] = { A: ["127.0.1.2"], ttl: 3600 };
    zone[`mx${m}.bench.test`] = { A: [mxIp(m)], ttl: 3600 };
    sites[domain(i)] = { body: `<html><h1>Company ${i}</h1></html>`, delayMs: DELAY_MS };
    for (let j = 0; j < maxPerDomain; j++)
      if (j % 10 < 7) hosts[mxIp(m)]!.mailboxes.push(`user${j}@${domain(i)}`);
  }
  const pki = await createTestPki();
  zone["rdap.test"] = { A: ["127.0.0.1"], ttl: 3600 };
  const leaf = await pki.issue(Array.from({ length: DOMAINS }, (_, i) => domain(i)));
  const registrations = Object.fromEntries(
    Array.from({ length: DOMAINS }, (_, i) => [
      domain(i),
      // A spread of ages: a few young domains, most several years old.
      {
        kind: "registered" as const,
        registeredAt: new Date(Date.now() - (i % 7 === 0 ? 30 : 400 + i * 10) * 86_400_000).toISOString(),
        registrar: "Bench Registrar",
      },
    ]),
  );
  const [dns, smtp, web, rdap] = await Promise.all([
    startDnsServer(zone),
    startSmtpServer(hosts),
    startSites(sites, { fallback: leaf }),
    startRdapServer(registrations, await pki.issue(["rdap.test"]), "rdap.test", DELAY_MS),
  ]);
  const info: NetInfo = {
    ca: pki.ca.cert,
    env: {
      RDAP_BOOTSTRAP_URL: rdap.serveBootstrap(["test"]),
      DNSBL_DOMAIN_ZONES: DBL_ZONE,
      DNSBL_IP_ZONES: ZEN_ZONE,
      DNS_SERVERS: dns.address,
      SMTP_PORT: String(smtp.port),
      WEBSITE_HTTP_PORT: String(web.httpPort),
      WEBSITE_HTTPS_PORT: String(web.httpsPort),
      ALLOW_PRIVATE_TARGETS: "true",
    },
  };
  process.send?.({ type: "ready", info });
  process.on("message", (msg: { type: string }) => {
    if (msg.type === "stats")
      process.send?.({
        type: "stats",
        connections: smtp.totalConnections(),
        sawData: smtp.sawData(),
        // The bootstrap file is fetched once per service start: not a registry query.
        rdapQueries: rdap.queries.length,
        dnsblQueries: dns.queries.filter((q) => q.endsWith(`.${DBL_ZONE}`) || q.endsWith(`.${ZEN_ZONE}`))
          .length,
      });
    if (msg.type === "reset") {
      smtp.connections.clear();
      rdap.queries.length = 0;
      dns.queries.length = 0;
      process.send?.({ type: "reset-done" });
    }
  });
}

function ask<T>(child: ReturnType<typeof fork>, type: string, reply: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (msg: { type: string } & T) => {
      if (msg.type !== reply) return;
      child.off("message", onMessage);
      resolve(msg);
    };
    child.on("message", onMessage);
    child.send({ type });
  });
}

/** The service modules of a checkout: this one, or BENCH_PEER's (typed as ours). */
async function serviceModules(tree: string | undefined) {
  const src = tree ? pathToFileURL(join(tree, "src")).href : new URL("../src", import.meta.url).href;
  const [config, main, worker] = await Promise.all([
    import(`${src}/config/config.js`) as Promise<typeof import("../src/config/config.js")>,
    import(`${src}/main.js`) as Promise<typeof import("../src/main.js")>,
    import(`${src}/worker.js`) as Promise<typeof import("../src/worker.js")>,
  ]);
  return { ...config, ...main, ...worker };
}

async function runOnce(
  kind: "sqlite" | "postgres",
  size: number,
  intel: "off" | "on",
  net: NetInfo,
  tree: string | undefined,
) {
  const { loadConfig, createServices, startQueue, registerWorkers } = await serviceModules(tree);
  const db = await createEmptyDatabase(kind);
  const config = loadConfig({
    ...net.env,
    DOMAIN_INTEL: intel === "on" ? "true" : "false",
    DATABASE_URL: db.url,
    LOG_LEVEL: "silent",
    NODE_ENV: "production",
    JOB_POLL_INTERVAL_MS: "50",
    MAX_VALIDATIONS_PER_DAY: "1000000",
  });
  const services = await createServices(config, { websiteCa: net.ca });
  await startQueue(services);
  await services.credits.grant("bench", size * 2 + 1000, "bench");
  const leads = Array.from({ length: size }, (_, n) => {
    const i = n % DOMAINS;
    const j = Math.floor(n / DOMAINS);
    return { email: `user${j}@${domain(i)}`, website: domain(i) };
  });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  const created = await services.leads.bulk("bench", leads, true, "api");
  const createMs = performance.now() - started;
  await registerWorkers(services);
  const batchId = created.batchId!;
  for (;;) {
    const b = await services.batches.get("bench", batchId);
    if (b.status !== "processing") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  const batch = await services.batches.get("bench", batchId);
  const stuck = await services.database.db
    .selectFrom("leads")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("validation_status", "=", "processing")
    .executeTakeFirstOrThrow();
  await services.queue.stop({ graceful: false, timeoutMs: 0 });
  await services.close();
  await db.drop();
  return {
    kind,
    size,
    intel,
    peer: tree !== undefined,
    wallMs,
    createMs,
    peakRss,
    batch,
    stuck: Number(stuck.n),
  };
}

type RunResult = Awaited<ReturnType<typeof runOnce>>;

/** One measured run in a fresh process, so each peak RSS is that run's alone. */
async function runInChild(
  kind: "sqlite" | "postgres",
  size: number,
  intel: "off" | "on",
  net: NetInfo,
  tree: string | undefined,
): Promise<RunResult> {
  const runner = fork(fileURLToPath(import.meta.url), ["--run", kind, String(size), intel], {
    execArgv: ["--import", "tsx"],
    stdio: "inherit",
    env: { ...process.env, BENCH_RUN_TREE: tree ?? "" },
  });
  runner.send({ type: "net", info: net });
  const [msg] = (await once(runner, "message")) as [{ type: string; result: RunResult }];
  runner.kill();
  return msg.result;
}

/** The run of median wall time among the repeats of one setting (ours unless `peer`). */
function median<R extends RunResult>(
  results: R[],
  kind: string,
  size: number,
  intel: string,
  peer = false,
): R | undefined {
  const runs = results
    .filter((r) => r.kind === kind && r.size === size && r.intel === intel && r.peer === peer)
    .sort((a, b) => a.wallMs - b.wallMs);
  return runs[Math.floor((runs.length - 1) / 2)];
}

/** Ours against the peer per round of each setting: its wall time over ours (above 1: ours is faster). */
function printAgainstPeer(results: RunResult[]): void {
  console.log(`\nagainst the peer (${PEER}), per round: peer's wall time / ours, median [lowest, highest]`);
  const settings = new Map<string, RunResult[]>();
  for (const r of results) {
    const key = `${r.kind} ${r.size} intel ${r.intel}`;
    settings.set(key, [...(settings.get(key) ?? []), r]);
  }
  for (const [key, runs] of settings) {
    const ours = runs.filter((r) => !r.peer);
    const theirs = runs.filter((r) => r.peer);
    const ratios = ours
      .map((r, i) => (theirs[i] ? theirs[i].wallMs / r.wallMs : Number.NaN))
      .filter((x) => !Number.isNaN(x))
      .sort((a, b) => a - b);
    if (ratios.length === 0) continue;
    const mid = ratios[Math.floor((ratios.length - 1) / 2)]!;
    const phase = (rs: RunResult[], pick: (r: RunResult) => number) =>
      rs.map((r) => (pick(r) / 1000).toFixed(1)).join("/");
    console.log(
      `${key.padEnd(26)} ${mid.toFixed(2)}x [${ratios[0]!.toFixed(2)}, ${ratios.at(-1)!.toFixed(2)}]  create s ${phase(ours, (r) => r.createMs)} vs ${phase(theirs, (r) => r.createMs)}, run s ${phase(ours, (r) => r.wallMs - r.createMs)} vs ${phase(theirs, (r) => r.wallMs - r.createMs)}`,
    );
  }
}

async function main() {
  if (process.argv.includes("--serve")) return serveFakeInternet();
  const runAt = process.argv.indexOf("--run");
  if (runAt >= 0) {
    const [msg] = (await once(process, "message")) as [{ info: NetInfo }];
    const result = await runOnce(
      process.argv[runAt + 1] as "sqlite" | "postgres",
      Number(process.argv[runAt + 2]),
      process.argv[runAt + 3] as "off" | "on",
      msg.info,
      process.env.BENCH_RUN_TREE || undefined,
    );
    process.send?.({ type: "result", result });
    return;
  }
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], {
    execArgv: ["--import", "tsx"],
    stdio: "inherit",
  });
  const [ready] = (await once(child, "message")) as [{ info: NetInfo }];
  console.log(
    `bench:batch  ${DOMAINS} domains, ${MX_HOSTS} MX hosts, +${DELAY_MS} ms per SMTP reply and HTTP response`,
  );
  console.log(
    "service dialect   leads intel   wall s  create s  leads/s  SMTP conns  RDAP q  DNSBL q  peak RSS MB  valid  invalid  risky  stuck",
  );
  type Stats = { connections: number; sawData: boolean; rdapQueries: number; dnsblQueries: number };
  const results: (RunResult & Stats)[] = [];
  for (const kind of DIALECTS) {
    for (const size of SIZES) {
      for (let round = 0; round < REPEAT; round++)
        for (const intel of INTEL)
          for (const tree of PEER ? [undefined, PEER] : [undefined]) {
            await ask(child, "reset", "reset-done");
            const run = await runInChild(kind, size, intel, ready.info, tree);
            const stats = await ask<Stats>(child, "stats", "stats");
            const r = { ...run, ...stats };
            results.push(r);
            const risky = r.batch.completedLeads - r.batch.validLeads - r.batch.invalidLeads;
            console.log(
              `${(tree ? "peer" : "ours").padEnd(7)} ${kind.padEnd(9)} ${String(size).padStart(6)} ${intel.padStart(5)} ${(r.wallMs / 1000).toFixed(1).padStart(8)} ${(r.createMs / 1000).toFixed(1).padStart(9)} ${(size / (r.wallMs / 1000)).toFixed(0).padStart(8)} ${String(r.connections).padStart(11)} ${String(r.rdapQueries).padStart(7)} ${String(r.dnsblQueries).padStart(8)} ${(r.peakRss / 1048576).toFixed(0).padStart(12)} ${String(r.batch.validLeads).padStart(6)} ${String(r.batch.invalidLeads).padStart(8)} ${String(risky).padStart(6)} ${String(r.stuck).padStart(6)}${r.sawData ? "  DATA SEEN!" : ""}`,
            );
          }
      const off = median(results, kind, size, "off");
      const on = median(results, kind, size, "on");
      if (off && on)
        console.log(
          `${kind} ${size}: throughput with domain intelligence ${(off.wallMs / on.wallMs).toFixed(2)}x of without, medians of ${REPEAT} (target >= 0.90); ${on.rdapQueries} RDAP and ${on.dnsblQueries} DNSBL queries for ${DOMAINS} domains and ${MX_HOSTS} MX hosts`,
        );
    }
    for (const intel of INTEL) {
      const [a, b] = SIZES.map((size) => median(results, kind, size, intel));
      if (a && b)
        console.log(
          `${kind} (intel ${intel}): ${b.size} leads took ${(b.wallMs / a.wallMs).toFixed(2)}x the time of ${a.size} (target < 2.2x)`,
        );
    }
  }
  console.log(
    "targets: 10,000 leads < 60 s, peak RSS < 300 MB (RSS of the service process: tsx, engines, workers)",
  );
  if (PEER) printAgainstPeer(results);
  child.kill();
}

await main();
