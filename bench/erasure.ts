// Erasure of one lead that went through a 10,000-lead batch, on SQLite and PostgreSQL (issue 25:
// under 1 s). Each database holds 10,000 leads of one account with their lead.created events, a
// finished validation batch of 10,000 items (input and result carry the address), a webhook with
// 10,000 deliveries, then three leads are erased in turn; the figure is the whole request's work:
// the transaction plus the scrub (SQLite FTS optimize and WAL truncate; PostgreSQL VACUUM).
// Run: npx tsx bench/erasure.ts   (PostgreSQL at 127.0.0.1:5432, db `test`, for the second line)
import { performance } from "node:perf_hooks";
import { loadConfig } from "../src/config/config.js";
import { newLeadRow } from "../src/leads/lead-fields.js";
import { createServices } from "../src/main.js";
import { insertInChunks } from "../src/storage/chunked-insert.js";
import type { BatchItemsTable, LeadsTable, WebhookDeliveriesTable } from "../src/storage/schema.js";
import { runInTransaction } from "../src/storage/transaction.js";
import { createEmptyDatabase } from "../test/support/db.js";
import { postgresSkipReason } from "../test/support/services.js";

const LEADS = 10_000;
const ACCOUNT = "acct_bench_erasure";

async function run(kind: "sqlite" | "postgres"): Promise<void> {
  if (kind === "postgres") {
    const skip = await postgresSkipReason();
    if (skip) {
      console.log(`postgres: skipped (${skip})`);
      return;
    }
  }
  const empty = await createEmptyDatabase(kind);
  const config = loadConfig({
    NODE_ENV: "test",
    DATABASE_URL: empty.url,
    LOG_LEVEL: "silent",
    AUTH_JWT_SECRET: "bench",
  });
  const services = await createServices(config);
  try {
    const { db } = services.database;
    await services.credits.ensureAccount(ACCOUNT);
    const now = new Date();
    const at = now.toISOString();
    const leads: LeadsTable[] = [];
    for (let i = 0; i < LEADS; i++) {
      const made = newLeadRow(
        ACCOUNT,
        { email: `person${i}@company${i % 500}.test`, firstName: `P${i}`, company: "Acme" },
        "api",
        now,
        (url) => ({ ok: true, url }),
      );
      if ("row" in made) leads.push(made.row);
    }
    await runInTransaction(db, async (trx) => {
      await insertInChunks(trx, "leads", leads);
      await services.events.emitMany(
        trx,
        leads.map((row) => ({
          type: "lead.created" as const,
          accountId: ACCOUNT,
          data: { leadId: row.id, email: row.email },
        })),
        now,
      );
      await trx
        .insertInto("batches")
        .values({
          id: "batch_bench",
          account_id: ACCOUNT,
          kind: "lead_validation",
          status: "completed",
          total: LEADS,
          completed: LEADS,
          valid: LEADS,
          invalid: 0,
          failed: 0,
          progress_quarter: 3,
          webhook_url: null,
          source: null,
          created_at: at,
          started_at: at,
          completed_at: at,
        })
        .execute();
      const items: BatchItemsTable[] = leads.map((row, seq) => ({
        id: `item_bench_${seq}`,
        batch_id: "batch_bench",
        account_id: ACCOUNT,
        seq,
        lead_id: row.id,
        input: row.email,
        group_key: row.email.split("@")[1] ?? "-",
        status: "done",
        verdict: "valid",
        result: JSON.stringify({ email: row.email, deliverable: true, score: 90 }),
        error: null,
        completed_at: at,
      }));
      await insertInChunks(trx, "batch_items", items);
      await trx
        .insertInto("webhooks")
        .values({
          id: "wh_bench",
          account_id: ACCOUNT,
          name: "crm",
          url: "http://127.0.0.1:9/",
          description: null,
          events: "[]",
          active: 1,
          secret: "whsec_bench",
          max_retries: 0,
          retry_delays: "[]",
          total_attempts: 0,
          successful_deliveries: 0,
          failed_deliveries: 0,
          last_delivery_at: null,
          last_success_at: null,
          secret_rotated_at: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      const deliveries: WebhookDeliveriesTable[] = leads.map((row, i) => ({
        id: `dlv_bench_${i}`,
        webhook_id: "wh_bench",
        account_id: ACCOUNT,
        event_id: `evt_bench_${i}`,
        event: "lead.validated",
        url: "http://127.0.0.1:9/",
        payload: JSON.stringify({
          event: "lead.validated",
          data: { leadId: row.id, email: row.email, deliverabilityRating: 90 },
        }),
        status: "success",
        http_status: 200,
        response_body: "ok",
        error_message: null,
        attempts: 1,
        attempt_log: "[]",
        is_test: 0,
        redelivery_of: null,
        next_attempt_at: null,
        delivered_at: at,
        created_at: at,
        updated_at: at,
      }));
      await insertInChunks(trx, "webhook_deliveries", deliveries);
    });
    await services.searchIndexer?.catchUp();
    const figures: number[] = [];
    for (const index of [100, 5000, 9900]) {
      const leadId = leads[index]!.id;
      const started = performance.now();
      const outcome = await services.erasure.erase(ACCOUNT, leadId, { kind: "system", id: "bench" });
      figures.push(performance.now() - started);
      if (outcome.kind !== "erased" || outcome.removed?.leads !== 1)
        throw new Error(`not erased: ${JSON.stringify(outcome)}`);
    }
    const shown = figures.map((ms) => `${ms.toFixed(0)} ms`).join(", ");
    console.log(
      `${kind}: erasure of a lead from a ${LEADS.toLocaleString("en")}-lead batch: ${shown} (max ${Math.max(...figures).toFixed(0)} ms, target < 1000 ms)`,
    );
  } finally {
    await services.close();
    await empty.drop();
  }
}

await run("sqlite");
await run("postgres");
