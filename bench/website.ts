// npm run bench:website — 1,000 website checks of local sites at concurrency 100, each site
// answering after ~20 ms, next to a baseline of plain undici GETs (redirects followed, no checks)
// over the same URLs in the same run. The sites and DNS run in one child process; baseline and
// engine each run in a fresh child so their throughput and peak RSS are measured alone.
// Everything listens on 127.0.0.1; nothing leaves the machine.
// BENCH_PEER=DIR: another checkout of leadcheck (its node_modules installed), e.g. the round-1 tree;
// its engine runs in the same rounds against the same sites, each side in a fresh child.
// BENCH_ROUNDS=N (default 1): rounds of baseline, engine (and peer), the order rotating per round.
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { Agent, interceptors, request } from "undici";
import { loadLexicon } from "../src/checks/website/parked-lexicon.js";
import { WebsiteEngine } from "../src/checks/website/website.engine.js";
import { DnsResolver } from "../src/net/dns.js";
import { HttpClient } from "../src/net/http-client.js";
import { startDnsServer } from "../test/support/dns-server.js";
import { type Site, startSites } from "../test/support/http-servers.js";
import { createTestPki } from "../test/support/test-ca.js";

const CHECKS = Number(process.env.BENCH_CHECKS ?? 1_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 100);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const WARMUP = 100;
const PEER = process.env.BENCH_PEER;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const PAGE = `<!doctype html><html><head><title>Local site</title></head><body>${"<p>Lorem ipsum dolor sit amet.</p>".repeat(60)}</body></html>`;

interface Fixture {
  dnsServer: string;
  ca: string;
  urls: string[];
}

interface Stats {
  label: string;
  checks: number;
  wallMs: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  peakRssMb: number;
  failures: number;
  /** User and system CPU of the side's process per check: less sensitive to a busy machine than checks/s. */
  cpuMsPerCheck: number;
}

const self = fileURLToPath(import.meta.url);
const mode = process.argv[2] ?? "main";
if (mode === "serve") await serve();
else if (mode === "dns") await serveDns();
else if (mode === "baseline" || mode === "engine" || mode === "peer") await client(mode);
else await main();

function siteNames(): string[] {
  return Array.from({ length: CHECKS + WARMUP }, (_, i) => `site-${i}.bench.test`);
}

/** Child: the DNS server for site-N.bench.test, on its own like a real resolver. */
async function serveDns(): Promise<void> {
  const zone = Object.fromEntries(siteNames().map((n) => [n, { A: ["127.0.0.1"] }]));
  const dns = await startDnsServer({ ...zone, "bench.test": { NS: ["ns1.bench.test"] } });
  process.send!(dns.address);
  process.on("disconnect", () => process.exit(0));
}

/** Child: the HTTPS sites (one in five reached through an http redirect). */
async function serve(): Promise<void> {
  const [dnsAddress] = (await once(process, "message")) as [string];
  const pki = await createTestPki();
  const names = siteNames();
  const page: Site = { body: PAGE, delayMs: LATENCY_MS };
  const sites = await startSites(Object.fromEntries(names.map((n) => [n, page])), {
    fallback: await pki.issue(["*.bench.test"]),
  });
  const urls = names.map((n, i) => {
    if (i % 5 !== 0) return `https://${n}:${sites.httpsPort}/`;
    sites.set(`http://${n}`, { location: `https://${n}:${sites.httpsPort}/`, delayMs: LATENCY_MS });
    return `http://${n}:${sites.httpPort}/`;
  });
  const fixture: Fixture = { dnsServer: dnsAddress, ca: pki.ca.cert, urls };
  process.send!(fixture);
  process.on("disconnect", () => process.exit(0));
}

/** Child: runs one side of the comparison and reports its figures. */
type Side = "baseline" | "engine" | "peer";

async function client(kind: Side): Promise<void> {
  const [fixture] = (await once(process, "message")) as [Fixture];
  const resolver = new DnsResolver({
    servers: [fixture.dnsServer],
    timeoutMs: Number(process.env.BENCH_DNS_TIMEOUT_MS ?? 2_000),
  });
  const run =
    kind === "engine"
      ? engineRunner(resolver, fixture)
      : kind === "peer"
        ? await peerRunner(fixture)
        : baselineRunner(resolver, fixture);
  await drive(run, fixture.urls.slice(CHECKS), CONCURRENCY);
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 20);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const { latencies, failures } = await drive(run, fixture.urls.slice(0, CHECKS), CONCURRENCY);
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  latencies.sort((a, b) => a - b);
  const stats: Stats = {
    label:
      kind === "engine"
        ? "website engine"
        : kind === "peer"
          ? `peer engine (${PEER})`
          : "baseline (undici GET)",
    checks: latencies.length,
    wallMs,
    perSecond: (latencies.length / wallMs) * 1000,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    peakRssMb: peakRss / 1024 / 1024,
    failures,
    cpuMsPerCheck: (cpu.user + cpu.system) / 1000 / Math.max(1, latencies.length),
  };
  resolver.close();
  // A peer's client may keep sockets or timers alive: the child's work is done once it reported.
  process.send!(stats, () => process.exit(0));
}

type Runner = (url: string) => Promise<boolean>;

function engineRunner(dns: DnsResolver, fixture: Fixture): Runner {
  const engine = new WebsiteEngine({
    dns,
    firstTryTimeoutMs: 10_000,
    retryTimeoutMs: 20_000,
    fallbackTimeoutMs: 15_000,
    totalDeadlineMs: 30_000,
    client: new HttpClient({ dns, allowPrivateTargets: true, ca: fixture.ca }),
    // BENCH_PARKED=rules: the page rules alone, to tell the page model's cost from the rest.
    ...(process.env.BENCH_PARKED === "rules"
      ? { parkedDetector: { model: null, lexicon: loadLexicon() } }
      : {}),
  });
  return async (url) => (await engine.check(url)).status === "active";
}

/** The peer checkout's own engine, resolver and client, with the options either generation takes. */
async function peerRunner(fixture: Fixture): Promise<Runner> {
  const root = PEER!.replace(/\/$/, "");
  const { WebsiteEngine: PeerEngine } = await import(`${root}/src/checks/website/website.engine.ts`);
  const { DnsResolver: PeerDns } = await import(`${root}/src/net/dns.ts`);
  const { HttpClient: PeerClient } = await import(`${root}/src/net/http-client.ts`);
  const dns = new PeerDns({
    servers: [fixture.dnsServer],
    timeoutMs: Number(process.env.BENCH_DNS_TIMEOUT_MS ?? 2_000),
  });
  const engine = new PeerEngine({
    dns,
    firstTryTimeoutMs: 10_000,
    retryTimeoutMs: 20_000,
    fallbackTimeoutMs: 15_000,
    totalDeadlineMs: 30_000,
    // Round 1 took the guard's options itself; later engines take a client.
    allowPrivateTargets: true,
    ca: fixture.ca,
    client: new PeerClient({ dns, allowPrivateTargets: true, ca: fixture.ca }),
  });
  return async (url) => (await engine.check(url)).status === "active";
}

function baselineRunner(dns: DnsResolver, fixture: Fixture): Runner {
  type LookupCallback = (
    err: Error | null,
    address: string | { address: string; family: number }[],
    family?: number,
  ) => void;
  const lookup = (host: string, options: { all?: boolean }, cb: LookupCallback) => {
    dns.resolveAddresses(host).then((answer) => {
      if (!answer.ok) return cb(new Error(answer.message), "", 4);
      const first = answer.records[0]!;
      if (options.all) return cb(null, [{ address: first, family: first.includes(":") ? 6 : 4 }]);
      cb(null, first, first.includes(":") ? 6 : 4);
    });
  };
  // Only the test CA: handing Node's whole root bundle to every connection would re-parse it per
  // handshake and make the baseline artificially slow.
  const dispatcher = new Agent({ connect: { ca: fixture.ca, lookup } }).compose(
    interceptors.redirect({ maxRedirections: 10 }),
  );
  return async (url) => {
    const res = await request(url, { dispatcher });
    await res.body.text();
    return res.statusCode >= 200 && res.statusCode < 400;
  };
}

async function drive(run: Runner, urls: string[], concurrency: number) {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++]!;
      const t0 = performance.now();
      const ok = await run(url).catch(() => false);
      latencies.push(performance.now() - t0);
      if (!ok) failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, failures };
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function spawnChild(arg: string): ChildProcess {
  return fork(self, [arg], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
}

async function measure(kind: Side, fixture: Fixture): Promise<Stats> {
  const child = spawnChild(kind);
  child.send(fixture);
  const [stats] = (await once(child, "message")) as [Stats];
  await once(child, "exit");
  return stats;
}

async function main(): Promise<void> {
  const dns = spawnChild("dns");
  const [dnsAddress] = (await once(dns, "message")) as [string];
  const server = spawnChild("serve");
  server.send(dnsAddress);
  const [fixture] = (await once(server, "message")) as [Fixture];
  console.log(
    `website bench: ${CHECKS} checks, concurrency ${CONCURRENCY}, site latency ${LATENCY_MS} ms, ` +
      `1 in 5 via an http->https redirect; ${WARMUP} warm-up requests per side`,
  );
  const sides: Side[] = PEER ? ["baseline", "engine", "peer"] : ["baseline", "engine"];
  const all: Stats[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    const stats = new Map<Side, Stats>();
    for (const side of order) {
      const measured = await measure(side, fixture);
      stats.set(side, measured);
      console.log(
        `  ${measured.label}: ${measured.perSecond.toFixed(0)} checks/s, ${measured.cpuMsPerCheck.toFixed(2)} CPU ms/check, ${measured.failures} failures`,
      );
    }
    const base = stats.get("baseline")!;
    all.push(...order.map((s) => stats.get(s)!));
    console.table(
      sides.map((side) => {
        const s = stats.get(side)!;
        return {
          side: s.label,
          "checks/s": s.perSecond.toFixed(0),
          "p50 ms": s.p50Ms.toFixed(1),
          "p99 ms": s.p99Ms.toFixed(1),
          "peak RSS MB": s.peakRssMb.toFixed(0),
          failures: s.failures,
          "wall ms": s.wallMs.toFixed(0),
          "/ baseline": (s.perSecond / base.perSecond).toFixed(2),
          "CPU ms/check": s.cpuMsPerCheck.toFixed(2),
        };
      }),
    );
    const ratio = stats.get("engine")!.perSecond / base.perSecond;
    const peer = stats.get("peer");
    console.log(
      `round ${round + 1}: engine / baseline throughput: ${ratio.toFixed(2)} (target >= 0.80)` +
        (peer
          ? `; peer / baseline ${(peer.perSecond / base.perSecond).toFixed(2)}; engine / peer ${(stats.get("engine")!.perSecond / peer.perSecond).toFixed(2)}`
          : ""),
    );
  }
  server.disconnect();
  dns.disconnect();
  if (ROUNDS > 1) {
    const median = (label: string) => {
      const v = all
        .filter((s) => s.label === label)
        .map((s) => s.perSecond)
        .sort((a, b) => a - b);
      return v[Math.floor(v.length / 2)] ?? 0;
    };
    const base = median("baseline (undici GET)");
    const line = `median over ${ROUNDS} rounds: engine / baseline ${(median("website engine") / base).toFixed(2)}`;
    console.log(
      PEER ? `${line}; peer / baseline ${(median(`peer engine (${PEER})`) / base).toFixed(2)}` : line,
    );
  }
}
