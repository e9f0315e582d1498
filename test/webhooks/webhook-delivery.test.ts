// Events to a real receiver on loopback through the real service on both dialects: fan-out from
// the outbox, signatures the receiver verifies, subscriptions and inactive endpoints, retries by
// the endpoint's schedule, the timeout, rotation, test deliveries, redelivery, history, bursts,
// purging and restarts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.js";
import { EVENT_TYPES, type EventType } from "../../src/events/events.js";
import { firstIdAt } from "../../src/lib/ids.js";
import { createServices, type Services, startQueue } from "../../src/main.js";
import { verifySignature } from "../../src/webhooks/signature.js";
import { registerWorkers } from "../../src/worker.js";
import { createTestDatabase, dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, TEST_JWT_SECRET } from "../support/harness.js";
import { waitFor } from "../support/wait-for.js";
import { type Receiver, startReceiver } from "./receiver.js";

const ENV = {
  ALLOW_PRIVATE_TARGETS: "true",
  JOB_POLL_INTERVAL_MS: "20",
  WEBHOOK_TIMEOUT_MS: "1500",
  WEBHOOK_RESPONSE_BODY_MAX_BYTES: "64",
  WEBHOOK_DISPATCH_INTERVAL_MS: "200",
  WEBHOOK_PURGE_INTERVAL_MS: "1000",
  RATE_LIMIT_PER_MINUTE: "100000",
  RATE_LIMIT_PER_HOUR: "100000",
};

const SAMPLE_DATA: Record<EventType, Record<string, unknown>> = {
  "validation.started": { batchId: "batch_1", totalLeads: 2 },
  "validation.complete": {
    batchId: "batch_1",
    status: "complete",
    totalLeads: 2,
    successfulValidations: 2,
    failedValidations: 0,
  },
  "validation.failed": { leadId: "lead_1", error: "smtp timeout" },
  "lead.created": { leadId: "lead_1", email: "a@acme.test" },
  "lead.updated": { leadId: "lead_1", changedFields: ["company"] },
  "lead.validated": { leadId: "lead_1", deliverabilityRating: 91 },
  "credits.low": { currentBalance: 0.09, threshold: 0.1, creditsUsed: 0.002 },
  "credits.depleted": { currentBalance: 0 },
  "batch.started": { batchId: "batch_1" },
  "batch.complete": { batchId: "batch_1" },
  "batch.progress": { batchId: "batch_1", progress: 50 },
  "sync.completed": { syncId: "sync_1", connectionId: "con_1", counts: { read: 2 } },
  "sync.failed": { syncId: "sync_1", connectionId: "con_1", reason: "token revoked" },
};

interface DeliveryRecord {
  delivery_id: string;
  event: string;
  event_id: string;
  status: string;
  http_status: number | null;
  response_body: string | null;
  error_message: string | null;
  attempts: number;
  attempt_log: { attempt: number; status: string; http_status: number | null; response_truncated: boolean }[];
  test: boolean;
  redelivery_of: string | null;
  delivered_at: string | null;
}

for (const kind of dialects()) {
  describe(`webhook deliveries (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let receiver: Receiver;

    before(async () => {
      if (skip) return;
      receiver = await startReceiver();
      h = await startHarness(kind, ENV, { workers: true });
    });
    after(async () => {
      await h?.close();
      await receiver?.close();
    });

    const api = async (
      account: string,
      method: "GET" | "POST" | "PATCH",
      url: string,
      payload?: Record<string, unknown>,
    ) => {
      const token = await h.token(account);
      return h.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(payload ? { payload } : {}),
      });
    };

    const createHook = async (account: string, path: string, body: Record<string, unknown> = {}) => {
      const res = await api(account, "POST", "/v1/webhooks", {
        name: path,
        url: receiver.url(path),
        events: [...EVENT_TYPES],
        ...body,
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json() as { webhook_id: string; secret: string };
    };

    const emit = (account: string, type: EventType, data: Record<string, unknown> = SAMPLE_DATA[type]) =>
      h.services.events.emit(h.services.database.db, type, account, data, new Date());

    const deliveries = async (account: string, webhookId: string, query = "") => {
      const res = await api(account, "GET", `/v1/webhooks/${webhookId}/deliveries${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { deliveries: DeliveryRecord[]; total: number; hasMore: boolean };
    };

    const settled = (account: string, webhookId: string, n: number) =>
      waitFor(
        async () => {
          const list = await deliveries(account, webhookId, "?limit=100");
          const done = list.deliveries.filter((d) => d.status !== "pending");
          return done.length >= n ? list.deliveries : undefined;
        },
        `${n} settled deliveries of ${webhookId}`,
        // Roomy: these tests are about what settles, not how fast (a loaded CI machine took >15 s
        // for a burst of 100).
        60_000,
        20,
      );

    const receivedAt = (path: string) => receiver.received.filter((r) => r.path === path);

    // delivery_stats are bumped right after an attempt is recorded: wait for them to match.
    const statsReach = (account: string, webhookId: string, expected: [number, number, number]) =>
      waitFor(
        async () => {
          const stats = (await api(account, "GET", `/v1/webhooks/${webhookId}`)).json().delivery_stats;
          const seen = [stats.total_attempts, stats.successful_deliveries, stats.failed_deliveries];
          return JSON.stringify(seen) === JSON.stringify(expected) ? stats : undefined;
        },
        `delivery_stats ${expected.join("/")}`,
        10_000,
        20,
      );

    /** leadcheck_webhook_deliveries_total by outcome, as GET /metrics reports it. */
    const deliveryOutcomes = async () => {
      const { values } = await h.services.metrics.webhookDeliveries.get();
      return Object.fromEntries(values.map((v) => [String(v.labels.outcome), v.value]));
    };
    const outcomesSince = (before: Record<string, number>, now: Record<string, number>) =>
      Object.fromEntries(["retry", "success", "failed"].map((o) => [o, (now[o] ?? 0) - (before[o] ?? 0)]));

    it("delivers every event kind with a signature the receiver verifies", { skip }, async () => {
      const hook = await createHook("acct_kinds", "/kinds");
      const emitted = new Map<string, string>();
      for (const type of EVENT_TYPES) emitted.set(type, (await emit("acct_kinds", type)).id);
      await waitFor(
        async () => (receivedAt("/kinds").length >= EVENT_TYPES.length ? true : undefined),
        "11 deliveries",
        15_000,
        20,
      );
      const got = receivedAt("/kinds");
      assert.deepEqual(new Set(got.map((r) => r.json.event)), new Set(EVENT_TYPES));
      for (const r of got) {
        const signature = String(r.headers["x-webhook-signature"]);
        assert.ok(verifySignature(hook.secret, r.body, signature), `${r.json.event} verifies`);
        assert.match(signature, /^sha256=[0-9a-f]{64}$/);
        assert.equal(r.headers["x-signature-256"], signature);
        assert.equal(r.headers["x-webhook-event"], r.json.event);
        assert.match(String(r.headers["x-webhook-delivery"]), /^dlv_[0-9a-z]{26}$/);
        assert.equal(r.headers["content-type"], "application/json");
        assert.equal(r.headers["user-agent"], "leadcheck-webhooks/0.1.0");
        assert.equal(r.json.eventId, emitted.get(String(r.json.event)));
        assert.equal(r.json.userId, "acct_kinds");
        assert.ok(Number.isFinite(Date.parse(String(r.json.timestamp))));
      }
      const complete = got.find((r) => r.json.event === "validation.complete")!.json;
      for (const field of ["batchId", "status", "totalLeads", "successfulValidations", "failedValidations"]) {
        assert.ok(field in complete, `validation.complete carries ${field}`);
      }
      const pending = await h.services.database.db
        .selectFrom("events")
        .select("id")
        .where("account_id", "=", "acct_kinds")
        .where("dispatched", "=", 0)
        .execute();
      assert.equal(pending.length, 0, "every event is marked dispatched");
      const n = EVENT_TYPES.length;
      const stats = await statsReach("acct_kinds", hook.webhook_id, [n, n, 0]);
      assert.ok(stats.last_success && stats.last_delivery);
    });

    it("delivers lead.created when a lead is created through the API", { skip }, async () => {
      const hook = await createHook("acct_leads", "/leads", { events: ["lead.created"] });
      const res = await api("acct_leads", "POST", "/v1/leads", { email: "eve@acme.test", validate: false });
      assert.equal(res.statusCode, 201, res.body);
      await waitFor(
        async () => (receivedAt("/leads").length > 0 ? true : undefined),
        "lead.created",
        15_000,
        20,
      );
      const got = receivedAt("/leads")[0]!;
      assert.equal(got.json.event, "lead.created");
      assert.equal(got.json.leadId, res.json().id);
      assert.ok(verifySignature(hook.secret, got.body, String(got.headers["x-webhook-signature"])));
    });

    it("sends nothing to an inactive webhook and only subscribed kinds to active ones", {
      skip,
    }, async () => {
      const a = await createHook("acct_subs", "/subs-a", { events: ["credits.low"] });
      const b = await createHook("acct_subs", "/subs-b", {
        events: ["credits.low", "lead.created"],
        active: false,
      });
      await createHook("acct_subs", "/subs-c", { events: ["lead.created"] });
      await emit("acct_subs", "credits.low");
      await emit("acct_subs", "lead.created");
      // Events are fanned out in order: once the later one arrived, the earlier one was handled.
      await waitFor(
        async () => (receivedAt("/subs-c").length > 0 ? true : undefined),
        "lead.created",
        15_000,
        20,
      );
      await settled("acct_subs", a.webhook_id, 1);
      assert.deepEqual(
        receivedAt("/subs-a").map((r) => r.json.event),
        ["credits.low"],
      );
      assert.deepEqual(
        receivedAt("/subs-c").map((r) => r.json.event),
        ["lead.created"],
      );
      assert.equal(receivedAt("/subs-b").length, 0);
      assert.equal((await deliveries("acct_subs", b.webhook_id)).total, 0);
    });

    it("retries by the endpoint's schedule: two failures then success make three attempts and a success", {
      skip,
    }, async () => {
      const before = await deliveryOutcomes();
      receiver.on("/flaky", (r) =>
        r.count <= 2 ? { status: 500, body: `failure ${r.count}` } : { status: 204 },
      );
      const hook = await createHook("acct_flaky", "/flaky", {
        events: ["batch.complete"],
        retry_config: { max_retries: 3, retry_delays: [30, 30, 30] },
      });
      await emit("acct_flaky", "batch.complete");
      const [record] = (await settled("acct_flaky", hook.webhook_id, 1)) as DeliveryRecord[];
      assert.equal(record!.status, "success");
      assert.equal(record!.attempts, 3);
      assert.equal(record!.http_status, 204);
      assert.ok(record!.delivered_at);
      assert.deepEqual(
        record!.attempt_log.map((a) => [a.attempt, a.status, a.http_status]),
        [
          [1, "failed", 500],
          [2, "failed", 500],
          [3, "success", 204],
        ],
      );
      const got = receivedAt("/flaky");
      assert.equal(got.length, 3);
      assert.equal(new Set(got.map((r) => r.headers["x-webhook-delivery"])).size, 1, "one delivery id");
      assert.equal(new Set(got.map((r) => r.body)).size, 1, "the same bytes every time");
      await statsReach("acct_flaky", hook.webhook_id, [3, 1, 0]);
      assert.deepEqual(outcomesSince(before, await deliveryOutcomes()), { retry: 2, success: 1, failed: 0 });
    });

    it("ends a delivery failed after its last retry, with every attempt and a truncated body", {
      skip,
    }, async () => {
      const before = await deliveryOutcomes();
      receiver.on("/down", () => ({ status: 503, body: "x".repeat(1000) }));
      const hook = await createHook("acct_down", "/down", {
        events: ["credits.depleted"],
        retry_config: { max_retries: 1, retry_delays: [20] },
      });
      await emit("acct_down", "credits.depleted");
      const [record] = (await settled("acct_down", hook.webhook_id, 1)) as DeliveryRecord[];
      assert.equal(record!.status, "failed");
      assert.equal(record!.attempts, 2);
      assert.equal(record!.http_status, 503);
      assert.equal(record!.error_message, "receiver answered 503");
      assert.equal(record!.response_body, "x".repeat(64));
      assert.ok(record!.attempt_log.every((a) => a.response_truncated));
      assert.equal(record!.delivered_at, null);
      const stats = await statsReach("acct_down", hook.webhook_id, [2, 0, 1]);
      assert.equal(stats.last_success, null);
      assert.deepEqual(outcomesSince(before, await deliveryOutcomes()), { retry: 1, success: 0, failed: 1 });
    });

    it("cuts a receiver that hangs at the configured timeout", { skip }, async () => {
      receiver.on("/hang", () => "hang");
      const hook = await createHook("acct_hang", "/hang", {
        events: ["lead.updated"],
        retry_config: { max_retries: 0 },
      });
      await emit("acct_hang", "lead.updated");
      const [record] = (await settled("acct_hang", hook.webhook_id, 1)) as DeliveryRecord[];
      assert.equal(record!.status, "failed");
      assert.equal(record!.http_status, null);
      assert.match(String(record!.error_message), /no response within 1500 ms/);
      await waitFor(
        async () => (receiver.abandoned() > 0 ? true : undefined),
        "the connection closed",
        5000,
        20,
      );
    });

    it("signs the next delivery after a rotation with the new secret only", { skip }, async () => {
      const hook = await createHook("acct_rotate", "/rotate", { events: ["lead.validated"] });
      const rotated = (
        await api("acct_rotate", "POST", `/v1/webhooks/${hook.webhook_id}/rotate-secret`)
      ).json();
      await emit("acct_rotate", "lead.validated");
      await waitFor(
        async () => (receivedAt("/rotate").length > 0 ? true : undefined),
        "delivery",
        15_000,
        20,
      );
      const got = receivedAt("/rotate")[0]!;
      const signature = String(got.headers["x-webhook-signature"]);
      assert.equal(verifySignature(rotated.secret, got.body, signature), true);
      assert.equal(verifySignature(hook.secret, got.body, signature), false);
    });

    it("sends a signed test delivery and reports its outcome", { skip }, async () => {
      const hook = await createHook("acct_test", "/test-ok", { events: ["lead.created"], active: false });
      const res = await api("acct_test", "POST", `/v1/webhooks/${hook.webhook_id}/test`, {
        event: "lead.validated",
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.success, true);
      assert.equal(body.event, "lead.validated");
      assert.ok(Number.isInteger(body.response_time_ms));
      assert.ok(Number.isFinite(Date.parse(body.delivered_at)));
      const got = receivedAt("/test-ok")[0]!;
      assert.ok(verifySignature(hook.secret, got.body, String(got.headers["x-webhook-signature"])));
      assert.equal(got.json.test, true);
      assert.equal(got.json.event, "lead.validated");
      assert.equal(typeof got.json.message, "string");
      assert.ok(Number.isFinite(Date.parse(String(got.json.timestamp))));
      assert.deepEqual(Object.keys(got.json.data as object).sort(), [
        "deliverabilityRating",
        "domainHttpStatus",
        "emailValid",
        "leadId",
      ]);
      const [record] = (await deliveries("acct_test", hook.webhook_id)).deliveries;
      assert.equal(record!.test, true);
      assert.equal(record!.status, "success");

      receiver.on("/test-bad", () => ({ status: 500 }));
      const bad = await createHook("acct_test", "/test-bad");
      const failed = (
        await api("acct_test", "POST", `/v1/webhooks/${bad.webhook_id}/test`, { event: "lead.created" })
      ).json();
      assert.equal(failed.success, false);
      assert.equal(failed.delivered_at, null);
      assert.equal(failed.http_status, 500);
      assert.equal(receivedAt("/test-bad").length, 1, "a test is sent once");
    });

    it("redelivers a delivery as a new delivery of the same event", { skip }, async () => {
      const hook = await createHook("acct_redeliver", "/redeliver", { events: ["batch.started"] });
      await emit("acct_redeliver", "batch.started");
      const [first] = (await settled("acct_redeliver", hook.webhook_id, 1)) as DeliveryRecord[];
      const res = await api(
        "acct_redeliver",
        "POST",
        `/v1/webhooks/${hook.webhook_id}/deliveries/${first!.delivery_id}/redeliver`,
      );
      assert.equal(res.statusCode, 202, res.body);
      assert.equal(res.json().redelivery_of, first!.delivery_id);
      assert.equal(res.json().status, "pending");
      await settled("acct_redeliver", hook.webhook_id, 2);
      const got = receivedAt("/redeliver");
      assert.equal(got.length, 2);
      assert.equal(got[0]!.body, got[1]!.body);
      assert.notEqual(got[0]!.headers["x-webhook-delivery"], got[1]!.headers["x-webhook-delivery"]);
      assert.equal(got[1]!.headers["x-webhook-delivery"], res.json().delivery_id);
    });

    it("lists deliveries newest first, paged, with a total", { skip }, async () => {
      const hook = await createHook("acct_pages", "/pages", { events: ["lead.updated"] });
      for (let i = 0; i < 5; i++) await emit("acct_pages", "lead.updated", { leadId: `lead_${i}` });
      await settled("acct_pages", hook.webhook_id, 5);
      const page1 = await deliveries("acct_pages", hook.webhook_id, "?limit=2");
      const page3 = await deliveries("acct_pages", hook.webhook_id, "?limit=2&offset=4");
      assert.equal(page1.total, 5);
      assert.equal(page1.deliveries.length, 2);
      assert.equal(page1.hasMore, true);
      assert.equal(page3.deliveries.length, 1);
      assert.equal(page3.hasMore, false);
      const all = (await deliveries("acct_pages", hook.webhook_id)).deliveries.map((d) => d.delivery_id);
      assert.deepEqual(all, [...all].sort().reverse());
    });

    it("keeps answering API requests during a burst of 100 deliveries", { skip }, async () => {
      let released = false;
      receiver.on("/burst", () => (released ? { status: 200 } : "hold"));
      const hook = await createHook("acct_burst", "/burst", {
        events: ["lead.validated"],
        retry_config: { max_retries: 5, retry_delays: [50] },
      });
      for (let i = 0; i < 100; i++) await emit("acct_burst", "lead.validated", { leadId: `lead_${i}` });
      await waitFor(
        async () => (receiver.held() >= 5 ? true : undefined),
        "deliveries in flight",
        15_000,
        10,
      );
      const list = await api("acct_burst", "GET", "/v1/webhooks");
      const health = await h.app.inject({ method: "GET", url: "/health" });
      assert.equal(list.statusCode, 200);
      assert.equal(health.statusCode, 200);
      assert.ok(receiver.held() > 0, "the API answered while deliveries were still waiting on the receiver");
      released = true;
      receiver.release();
      const records = (await settled("acct_burst", hook.webhook_id, 100)) as DeliveryRecord[];
      assert.equal(records.filter((d) => d.status === "success").length, 100);
      const eventIds = new Set(receivedAt("/burst").map((r) => r.json.eventId));
      assert.equal(eventIds.size, 100);
    });

    it("purges delivery records and dispatched events older than 30 days on its recurring job", {
      skip,
    }, async () => {
      const hook = await createHook("acct_purge", "/purge", { events: ["lead.created"] });
      const day = 86_400_000;
      const row = (id: string, ageDays: number) => {
        const at = new Date(Date.now() - ageDays * day).toISOString();
        return {
          id,
          webhook_id: hook.webhook_id,
          account_id: "acct_purge",
          event_id: `evt_${id}`,
          event: "lead.created",
          url: receiver.url("/purge"),
          payload: "{}",
          status: "success" as const,
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
        };
      };
      await h.services.database.db
        .insertInto("webhook_deliveries")
        .values([row("dlv_old", 31), row("dlv_recent", 29)])
        .execute();
      // Event ids sort by their creation time, as newId makes them (the purge relies on it); newId
      // itself never goes back in time, so these past ids are spelled out.
      const event = (ageDays: number, dispatched: number) => {
        const createdMs = Date.now() - ageDays * day;
        return {
          id: `${firstIdAt("evt", createdMs)}${"0".repeat(16)}`,
          account_id: "acct_purge",
          type: "lead.created",
          payload: "{}",
          created_at: new Date(createdMs).toISOString(),
          dispatched,
        };
      };
      const oldEvent = event(31, 1);
      const recentEvent = event(29, 1);
      // (Events not yet dispatched are never purged; here the running dispatcher would take them.)
      await h.services.database.db.insertInto("events").values([oldEvent, recentEvent]).execute();
      const purgeEvents = () =>
        h.services.database.db
          .selectFrom("events")
          .select("id")
          .where("account_id", "=", "acct_purge")
          .execute();
      // The job runs every second: a run that falls between the two inserts above purges the old
      // delivery record before the old event exists, so both are waited for (the next run takes it).
      await waitFor(
        async () =>
          (await deliveries("acct_purge", hook.webhook_id)).total === 1 &&
          !(await purgeEvents()).some((e) => e.id === oldEvent.id)
            ? true
            : undefined,
        "the old record and the old event purged",
        10_000,
        50,
      );
      const [kept] = (await deliveries("acct_purge", hook.webhook_id)).deliveries;
      assert.equal(kept!.delivery_id, "dlv_recent");
      const events = await purgeEvents();
      assert.deepEqual(
        events.map((e) => e.id),
        [recentEvent.id],
      );
    });
  });

  describe(`webhook deliveries across a restart (${kind})`, async () => {
    const skip = await skipReasonFor(kind);

    it("finishes pending retries and undispatched events in the next process", { skip }, async () => {
      const receiver = await startReceiver();
      const testDb = await createTestDatabase(kind);
      const start = async (workers: boolean): Promise<Services> => {
        const config = loadConfig({
          NODE_ENV: "test",
          DATABASE_URL: testDb.url,
          AUTH_JWT_SECRET: TEST_JWT_SECRET,
          LOG_LEVEL: "silent",
          ...ENV,
        });
        const services = await createServices(config, { migrate: false });
        await startQueue(services);
        if (workers) await registerWorkers(services);
        return services;
      };
      const stop = async (services: Services) => {
        await services.queue.stop({ graceful: true, timeoutMs: 2000 });
        await services.close();
      };
      try {
        receiver.on("/restart", (r) => (r.count === 1 ? { status: 500 } : { status: 200 }));
        const first = await start(true);
        const hook = await first.webhooks.create("acct_restart", {
          name: "restart",
          url: receiver.url("/restart"),
          events: ["batch.complete", "batch.started"],
          retry_config: { max_retries: 2, retry_delays: [1000] },
        });
        await first.events.emit(first.database.db, "batch.complete", "acct_restart", {}, new Date());
        await waitFor(
          async () => {
            const d = await first.database.db.selectFrom("webhook_deliveries").selectAll().executeTakeFirst();
            return d && Number(d.attempts) === 1 ? true : undefined;
          },
          "the first failed attempt",
          15_000,
          20,
        );
        await stop(first);

        const apiOnly = await start(false);
        await apiOnly.events.emit(apiOnly.database.db, "batch.started", "acct_restart", {}, new Date());
        await stop(apiOnly);

        const second = await start(true);
        try {
          const done = await waitFor(
            async () => {
              const list = await second.webhooks.listDeliveries("acct_restart", hook.webhook_id, {
                limit: 10,
                offset: 0,
              });
              return list.deliveries.filter((d) => d.status === "success").length === 2 ? list : undefined;
            },
            "both deliveries to succeed",
            15_000,
            20,
          );
          const byEvent = new Map(done.deliveries.map((d) => [d.event, d]));
          assert.equal(byEvent.get("batch.complete")!.attempts, 2);
          assert.equal(byEvent.get("batch.started")!.attempts, 1);
        } finally {
          await stop(second);
        }
      } finally {
        await receiver.close();
        await testDb.destroy();
      }
    });
  });
}
