// Sync end to end against the fakes at the real rate limits: N HubSpot contacts and an N-row Google
// Sheet are read, validated as one batch and written back by the worker, with the Google and
// HubSpot fakes enforcing the documented limits, and the leads' mail servers on loopback (fake
// DNS and SMTP answering at once, so validation is leadcheck's own work, not a remote's delay).
//
// The limits, as documented (checked 2026-11):
// - HubSpot, "API usage guidelines and limits" (developers.hubspot.com, usage guidelines): apps in
//   a single account (private apps) get a burst of 100 requests per 10 s on Free and Starter,
//   190 per 10 s on Professional and Enterprise (changelog "Increasing our API limits"), 250 with
//   the API limit increase pack; batch endpoints take at most 100 inputs; the CRM search API has
//   its own lower per-second limit (the sync's full pass does not use search).
// - Google Sheets API, "Usage limits" (developers.google.com/workspace/sheets/api/limits): read
//   requests 300 per minute per project and 60 per minute per user per project; write requests
//   the same, counted apart; a 2 MB request payload is recommended.
// The fakes enforce 100 per 10 s per portal (BENCH_HUBSPOT_PER_10S=190 for Professional) and 60
// reads plus 60 writes per minute per user; the service is configured with the same figures.
//
// The floor: the API calls the pass needs divided by the allowed rate (HubSpot: a page read and a
// batch update per 100 contacts, plus the property set-up; Sheets: one read of the sheet, then a
// re-read and a write per SYNC_SHEET_WRITE_ROWS rows). Validation is not a rate-limited remote
// call; its time is measured (the batch's own created -> completed) and reported beside it, and
// the target compares the wall time with floor + validation: the sync adds at most 30 %.
//
//   npm run bench:sync   BENCH_SYNC_ROWS=10000 (sheet rows) BENCH_SYNC_CONTACTS (default: rows)
//                        BENCH_SYNC_SOURCES=sheets,hubspot BENCH_DIALECTS=sqlite[,postgres]
//                        BENCH_HUBSPOT_PER_10S=100 BENCH_SYNC_RATE_SCALE=1 (limits x scale per
//                        unit of time: 10 makes the windows ten times shorter, for a quick look)
// The fakes run in a child process, each measured run in another, so peak RSS is the service's.
import { fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createEmptyDatabase } from "../test/support/db.js";
import type { Zone } from "../test/support/dns-server.js";

const ROWS = Number(process.env.BENCH_SYNC_ROWS ?? 10_000);
const CONTACTS = Number(process.env.BENCH_SYNC_CONTACTS ?? ROWS);
const SOURCES = (process.env.BENCH_SYNC_SOURCES ?? "sheets,hubspot").split(",") as Source[];
const DIALECTS = (process.env.BENCH_DIALECTS ?? "sqlite").split(",") as ("sqlite" | "postgres")[];
const SCALE = Number(process.env.BENCH_SYNC_RATE_SCALE ?? 1);
const HUBSPOT_PER_WINDOW = Number(process.env.BENCH_HUBSPOT_PER_10S ?? 100);
const HUBSPOT_WINDOW_MS = Math.round(10_000 / SCALE);
const GOOGLE_PER_WINDOW = 60;
const GOOGLE_WINDOW_MS = Math.round(60_000 / SCALE);
const SHEET_WRITE_ROWS = Number(process.env.SYNC_SHEET_WRITE_ROWS ?? 2000);
const DOMAINS = 200;
const MX_HOSTS = 20;

type Source = "sheets" | "hubspot";
const domain = (i: number) => `co${i}.test`;
const mxIp = (m: number) => `127.0.2.${m + 1}`;
/** Lead n: a mailbox on one of 200 domains; 7 in 10 exist. */
const emailOf = (n: number) => `user${Math.floor(n / DOMAINS)}@${domain(n % DOMAINS)}`;

interface Setup {
  env: Record<string, string>;
  ca: string;
}
interface SourceSetup {
  spreadsheetId?: string;
  serviceAccount?: { client_email: string; private_key: string } & Record<string, unknown>;
  accessToken?: string;
}
interface CallStats {
  calls: number;
  refused429: number;
  byKind: Record<string, number>;
}

/** The fake internet, Google and HubSpot, in their own process. */
async function serveFakes(): Promise<void> {
  const { startDnsServer } = await import("../test/support/dns-server.js");
  const { startSmtpServer } = await import("../test/support/smtp-server.js");
  const { createTestPki } = await import("../test/support/test-ca.js");
  const { startFakeGoogle } = await import("../test/support/fake-google.js");
  const { startFakeHubSpot } = await import("../test/support/fake-hubspot.js");
  const perDomain = Math.ceil(Math.max(ROWS, CONTACTS) / DOMAINS);
  const zone: Zone = {};
  const hosts: Record<string, { mailboxes: string[] }> = {};
  for (let m = 0; m < MX_HOSTS; m++) hosts[mxIp(m)] = { mailboxes: [] };
  for (let i = 0; i < DOMAINS; i++) {
    const m = i % MX_HOSTS;
    zone[domain(i)] = { A: ["127.0.0.1"], MX: [{ exchange: `mx${m}.bench.test`, priority: 10 }], ttl: 3600 };
    zone[`mx${m}.bench.test`] = { A: [mxIp(m)], ttl: 3600 };
    for (let j = 0; j < perDomain; j++)
      if (j % 10 < 7) hosts[mxIp(m)]!.mailboxes.push(`user${j}@${domain(i)}`);
  }
  const pki = await createTestPki();
  const [dns, smtp, google, hubspot] = await Promise.all([
    startDnsServer(zone),
    startSmtpServer(hosts),
    startFakeGoogle({ perUserPerWindow: GOOGLE_PER_WINDOW, windowMs: GOOGLE_WINDOW_MS }),
    startFakeHubSpot({ perWindow: HUBSPOT_PER_WINDOW, windowMs: HUBSPOT_WINDOW_MS }),
  ]);
  const setup: Setup = {
    ca: pki.ca.cert,
    env: {
      DNS_SERVERS: dns.address,
      SMTP_PORT: String(smtp.port),
      ALLOW_PRIVATE_TARGETS: "true",
      GOOGLE_SHEETS_API_URL: google.sheetsUrl,
      GOOGLE_OAUTH_TOKEN_URL: google.tokenUrl,
      HUBSPOT_API_URL: hubspot.url,
    },
  };
  const stats = (calls: { url: string; method: string; status: number; at: number }[]): CallStats => {
    const byKind: Record<string, number> = {};
    for (const call of calls) {
      const path = call.url.split("?")[0]!.replace(/\/v4\/spreadsheets\/[^/:]+/, "/v4/spreadsheets/{id}");
      const kind = `${call.method} ${path.replace(/\/values\/.*/, "/values/{range}")}`;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    }
    return { calls: calls.length, refused429: calls.filter((c) => c.status === 429).length, byKind };
  };
  process.send?.({ type: "ready", setup });
  process.on("message", (msg: { type: string; source?: Source; since?: number }) => {
    if (msg.type === "source" && msg.source === "sheets") {
      const serviceAccount = google.newServiceAccount();
      const rows = [
        ["Email", "First name", "Company", "Notes"],
        ...Array.from({ length: ROWS }, (_, n) => [
          emailOf(n),
          `Name ${n}`,
          `Company ${n % DOMAINS}`,
          "keep",
        ]),
      ];
      const sheet = google.addSpreadsheet({ sheets: { Leads: rows } });
      sheet.sharedWith.add(serviceAccount.client_email);
      google.calls.length = 0;
      google.writes.length = 0;
      google.batchUpdates.length = 0;
      process.send?.({
        type: "source",
        source: {
          spreadsheetId: sheet.spreadsheetId,
          serviceAccount: { ...serviceAccount },
        } satisfies SourceSetup,
      });
    }
    if (msg.type === "source" && msg.source === "hubspot") {
      const accessToken = hubspot.newToken();
      for (let n = 0; n < CONTACTS; n++)
        hubspot.addContact({ email: emailOf(n), firstname: `Name ${n}`, company: `Company ${n % DOMAINS}` });
      hubspot.calls.length = 0;
      hubspot.writes.length = 0;
      process.send?.({ type: "source", source: { accessToken } satisfies SourceSetup });
    }
    if (msg.type === "stats")
      process.send?.({
        type: "stats",
        // The pass's calls (not the connection's verification); the token endpoint is not part of
        // the Sheets quota.
        stats: stats(
          (msg.source === "sheets" ? google.calls.filter((c) => c.caller !== null) : hubspot.calls).filter(
            (c) => c.at >= (msg.since ?? 0),
          ),
        ),
      });
    if (msg.type === "reset") {
      // Each run is a first sync: contacts, and our property group and properties, start afresh.
      hubspot.contacts.clear();
      for (const name of [...hubspot.properties.keys()])
        if (name.startsWith("leadcheck_")) hubspot.properties.delete(name);
      hubspot.groups.delete("leadcheck");
      google.spreadsheets.clear();
      google.quota.reset();
      google.writeQuota.reset();
      hubspot.limit.reset();
      process.send?.({ type: "reset-done" });
    }
  });
}

function ask<T>(child: ReturnType<typeof fork>, message: Record<string, unknown>, reply: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (msg: { type: string } & T) => {
      if (msg.type !== reply) return;
      child.off("message", onMessage);
      resolve(msg);
    };
    child.on("message", onMessage);
    child.send(message);
  });
}

/** One pass of one source, measured in this (fresh) process. */
async function runOnce(kind: "sqlite" | "postgres", source: Source, setup: Setup, input: SourceSetup) {
  const { loadConfig } = await import("../src/config/config.js");
  const { createServices, startQueue } = await import("../src/main.js");
  const { registerWorkers } = await import("../src/worker.js");
  const db = await createEmptyDatabase(kind);
  const size = source === "sheets" ? ROWS : CONTACTS;
  const config = loadConfig({
    ...setup.env,
    DOMAIN_INTEL: "false",
    DATABASE_URL: db.url,
    LOG_LEVEL: "silent",
    NODE_ENV: "production",
    JOB_POLL_INTERVAL_MS: "50",
    MAX_VALIDATIONS_PER_DAY: "1000000",
    LEADCHECK_SECRET_KEY: "bench-secret-key-for-connection-credentials",
    HUBSPOT_REQUESTS_PER_WINDOW: String(HUBSPOT_PER_WINDOW),
    HUBSPOT_WINDOW_MS: String(HUBSPOT_WINDOW_MS),
    GOOGLE_REQUESTS_PER_WINDOW: String(GOOGLE_PER_WINDOW),
    GOOGLE_WINDOW_MS: String(GOOGLE_WINDOW_MS),
    SYNC_POLL_INTERVAL_MS: "200",
    SYNC_SHEET_WRITE_ROWS: String(SHEET_WRITE_ROWS),
  });
  const services = await createServices(config, { websiteCa: setup.ca });
  await startQueue(services);
  await registerWorkers(services);
  await services.credits.grant("bench", size * 2 + 1000, "bench");
  const { connections, syncs } = services.integrations!;
  const created = await connections.create(
    "bench",
    source === "sheets"
      ? { kind: "google_sheets", name: "bench", serviceAccount: input.serviceAccount }
      : { kind: "hubspot", name: "bench", accessToken: input.accessToken },
  );
  const connectionId = created.connectionId;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  const startedAt = Date.now();
  const sync = await syncs.start(
    "bench",
    connectionId,
    source === "sheets"
      ? { spreadsheetId: input.spreadsheetId!, sheet: "Leads", validate: true, writeBack: true }
      : { validate: true, writeBack: true },
  );
  let view = sync;
  while (view.status === "running") {
    await new Promise((r) => setTimeout(r, 100));
    view = await syncs.get("bench", sync.syncId);
  }
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  const batch = view.batchId ? await services.batches.get("bench", view.batchId) : null;
  const validationMs =
    batch?.completedAt && batch.createdAt ? Date.parse(batch.completedAt) - Date.parse(batch.createdAt) : 0;
  const importMs = batch ? Date.parse(batch.createdAt) - startedAt : 0;
  const writeMs = batch?.completedAt ? Date.now() - Date.parse(batch.completedAt) : 0;
  await services.queue.stop({ graceful: false, timeoutMs: 0 });
  await services.close();
  await db.drop();
  return {
    kind,
    source,
    size,
    startedAt,
    wallMs,
    validationMs,
    importMs,
    writeMs,
    peakRss,
    sync: view,
    batch,
  };
}

type RunResult = Awaited<ReturnType<typeof runOnce>>;

async function runInChild(
  kind: "sqlite" | "postgres",
  source: Source,
  setup: Setup,
  input: SourceSetup,
): Promise<RunResult> {
  const runner = fork(fileURLToPath(import.meta.url), ["--run", kind, source], {
    execArgv: ["--import", "tsx"],
    stdio: "inherit",
  });
  runner.send({ setup, input });
  const [msg] = (await once(runner, "message")) as [{ result?: RunResult; error?: string }];
  runner.kill();
  if (!msg.result) throw new Error(`the ${source} run failed: ${msg.error}`);
  return msg.result;
}

/** API calls the pass cannot do without, and the seconds the limits need for them. */
function floorOf(source: Source, size: number): { calls: number; seconds: number } {
  if (source === "hubspot") {
    // A page read and a batch update per 100 contacts; the group and five properties are read
    // (two calls) and created (six) on the first sync.
    const calls = 2 * Math.ceil(size / 100) + 8;
    return { calls, seconds: calls / (HUBSPOT_PER_WINDOW / (HUBSPOT_WINDOW_MS / 1000)) };
  }
  const chunks = Math.ceil(size / SHEET_WRITE_ROWS);
  const reads = 1 + chunks;
  const perSecond = GOOGLE_PER_WINDOW / (GOOGLE_WINDOW_MS / 1000);
  // Reads and writes are separate quotas, used side by side.
  return { calls: reads + chunks, seconds: Math.max(reads, chunks) / perSecond };
}

async function main() {
  if (process.argv.includes("--serve")) return serveFakes();
  const runAt = process.argv.indexOf("--run");
  if (runAt >= 0) {
    const [msg] = (await once(process, "message")) as [{ setup: Setup; input: SourceSetup }];
    try {
      const result = await runOnce(
        process.argv[runAt + 1] as "sqlite" | "postgres",
        process.argv[runAt + 2] as Source,
        msg.setup,
        msg.input,
      );
      process.send?.({ result });
    } catch (error) {
      process.send?.({ error: String((error as Error).stack ?? error) });
    }
    return;
  }
  const fakes = fork(fileURLToPath(import.meta.url), ["--serve"], {
    execArgv: ["--import", "tsx"],
    stdio: "inherit",
  });
  const [ready] = (await once(fakes, "message")) as [{ setup: Setup }];
  console.log(
    `bench:sync  HubSpot ${HUBSPOT_PER_WINDOW} req / ${HUBSPOT_WINDOW_MS / 1000} s, Google ${GOOGLE_PER_WINDOW} reads + ${GOOGLE_PER_WINDOW} writes / ${GOOGLE_WINDOW_MS / 1000} s per user` +
      `${SCALE === 1 ? "" : ` (real limits x ${SCALE} per unit of time)`}; sheet chunks of ${SHEET_WRITE_ROWS} rows`,
  );
  const rows: string[] = [];
  for (const kind of DIALECTS)
    for (const source of SOURCES) {
      await ask(fakes, { type: "reset" }, "reset-done");
      const { source: input } = await ask<{ source: SourceSetup }>(
        fakes,
        { type: "source", source },
        "source",
      );
      const r = await runInChild(kind, source, ready.setup, input);
      const { stats } = await ask<{ stats: CallStats }>(
        fakes,
        { type: "stats", source, since: r.startedAt },
        "stats",
      );
      const floor = floorOf(source, r.size);
      const target = floor.seconds + r.validationMs / 1000;
      const c = r.sync.counts;
      rows.push(
        [
          source.padEnd(8),
          kind.padEnd(9),
          String(r.size).padStart(6),
          r.sync.status.padEnd(9),
          (r.wallMs / 1000).toFixed(1).padStart(7),
          floor.seconds.toFixed(1).padStart(8),
          (r.validationMs / 1000).toFixed(1).padStart(8),
          (r.wallMs / 1000 / target).toFixed(2).padStart(7),
          `${stats.calls}/${floor.calls}`.padStart(10),
          String(stats.refused429).padStart(5),
          (r.peakRss / 1048576).toFixed(0).padStart(8),
          `${c.read}/${c.created}/${c.validated}/${c.written}/${c.failed}`.padStart(24),
        ].join(" "),
      );
      console.log(
        `${source} ${kind}: import ${(r.importMs / 1000).toFixed(1)} s, validation ${(r.validationMs / 1000).toFixed(1)} s, write-back ${(r.writeMs / 1000).toFixed(1)} s; calls ${JSON.stringify(stats.byKind)}`,
      );
    }
  console.log(
    "\nsource   dialect    size status    wall s  floor s  valid. s  ratio  calls/need  429s  RSS MB  read/new/validated/written/failed",
  );
  for (const row of rows) console.log(row);
  console.log(
    "floor s: API calls needed / allowed rate; valid. s: the sync's validation batch, created -> completed;\n" +
      "ratio: wall / (floor + validation), target <= 1.30; calls/need: calls the fake answered (429s included) / calls needed",
  );
  fakes.kill();
}

await main();
