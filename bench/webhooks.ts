// Webhook burst benchmark (not part of the test run): 1000 events emitted like a batch
// completion (transactions of 100), fanned out and delivered to a loopback receiver, next to a
// baseline of the same number of signed POSTs sent straight through the sender with the same
// concurrency; and /health latency while idle and during the deliveries.
//   npm run bench:webhooks -- [sqlite|postgres] [events]
import autocannon from "autocannon";
import { loadConfig } from "../src/config/config.js";
import { mapLimit } from "../src/lib/concurrency.js";
import { buildHttpApp, createServices, startQueue } from "../src/main.js";
import { DnsResolver } from "../src/net/dns.js";
import { HttpClient } from "../src/net/http-client.js";
import { WebhookSender } from "../src/webhooks/webhook-sender.js";
import { registerWorkers } from "../src/worker.js";
import { createTestDatabase } from "../test/support/db.js";
import { startReceiver } from "../test/webhooks/receiver.js";

const kind = (process.argv[2] ?? "sqlite") as "sqlite" | "postgres";
const events = Number(process.argv[3] ?? 1000);
const concurrency = 25;

const testDb = await createTestDatabase(kind);
const receiver = await startReceiver();
const config = loadConfig({
  NODE_ENV: "test",
  DATABASE_URL: testDb.url,
  LOG_LEVEL: "silent",
  ALLOW_PRIVATE_TARGETS: "true",
  WEBHOOK_DELIVERY_CONCURRENCY: String(concurrency),
  RATE_LIMIT_PER_MINUTE: "100000000",
  RATE_LIMIT_PER_HOUR: "100000000",
});
const services = await createServices(config, { migrate: false });
await startQueue(services);
const app = await buildHttpApp(services);
await app.listen({ port: 0, host: "127.0.0.1" });
const { port } = app.server.address() as { port: number };
const { db } = services.database;

const health = (seconds: number) =>
  autocannon({ url: `http://127.0.0.1:${port}/health`, connections: 10, duration: seconds });
const count = async (
  table: "events" | "webhook_deliveries",
  column: "dispatched" | "status",
  value: number | string,
) => {
  const row = await db
    .selectFrom(table as "events")
    .select((e) => e.fn.countAll<number>().as("n"))
    .where(column as "dispatched", "=", value as number)
    .executeTakeFirstOrThrow();
  return Number(row.n);
};
const until = async (check: () => Promise<boolean>) => {
  while (!(await check())) await new Promise((r) => setTimeout(r, 10));
};

// Baseline: the network part alone.
const dns = new DnsResolver({ servers: ["127.0.0.1:9"] });
const sender = new WebhookSender({
  client: new HttpClient({ dns, allowPrivateTargets: true, userAgent: "bench" }),
  timeoutMs: 30_000,
  responseBodyMaxBytes: 4096,
});
const body = JSON.stringify({
  event: "lead.validated",
  leadId: "lead_x",
  timestamp: new Date().toISOString(),
});
let started = performance.now();
await mapLimit(Array.from({ length: events }), concurrency, (_, i) =>
  sender.sendSigned({
    url: receiver.url("/base"),
    body,
    secret: "whsec_b",
    event: "lead.validated",
    deliveryId: `d${i}`,
  }),
);
const baselineMs = performance.now() - started;

const idle = await health(3);
await services.webhooks.create("acct_bench", {
  name: "bench",
  url: receiver.url("/hook"),
  events: ["lead.validated"],
});
for (let i = 0; i < events; i += 100) {
  await db.transaction().execute(async (trx) => {
    for (let j = i; j < Math.min(events, i + 100); j++) {
      await services.events.emit(trx, "lead.validated", "acct_bench", { leadId: `lead_${j}` }, new Date());
    }
  });
}
started = performance.now();
const during = health(4);
await registerWorkers(services);
await until(async () => (await count("events", "dispatched", 0)) === 0);
const dispatchMs = performance.now() - started;
await until(async () => (await count("webhook_deliveries", "status", "success")) === events);
const deliveredMs = performance.now() - started;
const busy = await during;

const rate = (ms: number) => Math.round(events / (ms / 1000));
console.log(`webhooks burst, ${kind}, ${events} events, delivery concurrency ${concurrency}`);
console.log(`  baseline: signed POSTs straight through the sender   ${rate(baselineMs)}/s`);
console.log(
  `  service: outbox -> fan-out (all dispatched)           ${rate(dispatchMs)}/s (${Math.round(dispatchMs)} ms)`,
);
console.log(
  `  service: outbox -> delivered and recorded             ${rate(deliveredMs)}/s (${Math.round(deliveredMs)} ms)`,
);
console.log(
  `  GET /health idle:            ${Math.round(idle.requests.average)} req/s, p50 ${idle.latency.p50} ms, p99 ${idle.latency.p99} ms`,
);
console.log(
  `  GET /health during delivery: ${Math.round(busy.requests.average)} req/s, p50 ${busy.latency.p50} ms, p99 ${busy.latency.p99} ms`,
);

await app.close();
await services.queue.stop({ graceful: false, timeoutMs: 0 });
await services.close();
dns.close();
await receiver.close();
await testDb.destroy();
