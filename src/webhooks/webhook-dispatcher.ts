// The background side of webhooks: fans events out of the outbox into one delivery record per
// subscribed active endpoint (each with a durable job, in the same transaction), runs delivery
// attempts with the endpoint's retry schedule, and purges old delivery records. At-least-once:
// a crash between an attempt and its record repeats the attempt; receivers de-duplicate by the
// event id and the X-Webhook-Delivery header.
import type { EventsRepo } from "../events/events.repo.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { Clock } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import type { WebhookDeliveriesTable, WebhooksTable } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import { delayAfterAttempt } from "./retry-config.js";
import type { AttemptResult, WebhookSender } from "./webhook-sender.js";
import { type AttemptRecord, eventsOf, retryConfigOf } from "./webhook-view.js";
import type { WebhooksRepo } from "./webhooks.repo.js";

export const WEBHOOK_DELIVER_JOB = "webhooks.deliver";
export const WEBHOOK_DISPATCH_JOB = "webhooks.dispatch";
export const WEBHOOK_PURGE_JOB = "webhooks.purge";

export interface DeliverJobData extends Record<string, unknown> {
  deliveryId: string;
  /** 1-based number of the attempt this job makes. */
  attempt: number;
}

export interface WebhookDispatcherDeps {
  /** Its repository, built by the module's factory. */
  repo: WebhooksRepo;
  database: Database;
  /** The events outbox the dispatcher fans out and purges. */
  outbox: EventsRepo;
  queue: JobQueue;
  clock: Clock;
  sender: WebhookSender;
  retentionDays: number;
  /** Events fanned out per transaction. */
  dispatchBatchSize?: number;
  /** Told of every recorded attempt's outcome (metrics): "retry" when another attempt is queued. */
  onAttempt?: ((outcome: AttemptOutcome) => void) | undefined;
}

type AttemptOutcome = "success" | "failed" | "retry";

const PURGE_CHUNK = 1000;
const DISPATCH_LANES = 4;

export class WebhookDispatcher {
  constructor(private readonly deps: WebhookDispatcherDeps) {}

  /** Fans out every pending event; returns how many events it handled. */
  async dispatchPending(): Promise<number> {
    const { caps } = this.deps.database;
    const batchSize = this.deps.dispatchBatchSize ?? 100;
    // Each delivery job is one insert: where writers can run side by side (skipping each
    // other's locked events), several transactions fan a burst out faster than one.
    const lanes = caps.concurrentWriters && caps.skipLocked ? DISPATCH_LANES : 1;
    const counts = await Promise.all(
      Array.from({ length: lanes }, async () => {
        let total = 0;
        for (;;) {
          const handled = await this.dispatchBatch(batchSize);
          total += handled;
          if (handled < batchSize) return total;
        }
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  private dispatchBatch(limit: number): Promise<number> {
    const { db, caps } = this.deps.database;
    return runInTransaction(db, async (trx) => {
      const events = await this.deps.outbox.pending(trx, limit, caps.skipLocked);
      if (events.length === 0) return 0;
      const accounts = [...new Set(events.map((e) => e.account_id))];
      const hooks = (await this.deps.repo.activeWebhooksOf(trx, accounts)).map((h) => ({
        ...h,
        kinds: new Set(eventsOf(h)),
      }));
      const at = this.deps.clock.now();
      const rows: WebhookDeliveriesTable[] = [];
      for (const event of events) {
        for (const hook of hooks) {
          if (hook.account_id !== event.account_id || !hook.kinds.has(event.type)) continue;
          rows.push(
            newDeliveryRow(hook, { eventId: event.id, event: event.type, payload: event.payload }, at),
          );
        }
      }
      const inserted = await this.deps.repo.insertDeliveries(trx, rows);
      for (const deliveryId of inserted) {
        await this.deps.queue.send<DeliverJobData>(WEBHOOK_DELIVER_JOB, { deliveryId, attempt: 1 }, { trx });
      }
      await this.deps.outbox.markDispatched(
        trx,
        events.map((e) => e.id),
      );
      return events.length;
    });
  }

  /** Runs attempt `attempt` of a delivery unless it already ran or the delivery is over. */
  async deliver(deliveryId: string, attempt: number): Promise<void> {
    const { db } = this.deps.database;
    const delivery = await this.deps.repo.findDelivery(db, deliveryId);
    if (delivery?.status !== "pending" || Number(delivery.attempts) >= attempt) return;
    const webhook = await this.deps.repo.findWebhookById(db, delivery.webhook_id);
    if (!webhook) return;
    if (Number(webhook.active) !== 1 && Number(delivery.is_test) !== 1) {
      const at = this.deps.clock.now().toISOString();
      if (await this.deps.repo.closeDelivery(db, deliveryId, "webhook is inactive; delivery cancelled", at)) {
        await this.deps.repo.addStats(db, webhook.id, {
          attempts: 0,
          succeeded: false,
          failedForGood: true,
          at,
        });
      }
      return;
    }
    await this.attempt(delivery, webhook, attempt, true);
  }

  /**
   * Sends one attempt now and records it. With `retry`, a failure that has retries left queues
   * the next attempt after the endpoint's delay. Returns the attempt's result.
   */
  async attempt(
    delivery: WebhookDeliveriesTable,
    webhook: WebhooksTable,
    attempt: number,
    retry: boolean,
  ): Promise<{ result: AttemptResult; at: string }> {
    const startedAt = this.deps.clock.now().toISOString();
    const result = await this.deps.sender.sendSigned({
      url: webhook.url,
      body: delivery.payload,
      secret: webhook.secret,
      event: delivery.event,
      deliveryId: delivery.id,
    });
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const delayMs = result.ok || !retry ? null : delayAfterAttempt(retryConfigOf(webhook), attempt);
    const status = result.ok ? "success" : delayMs === null ? "failed" : "pending";
    const log = JSON.parse(delivery.attempt_log) as AttemptRecord[];
    log.push(attemptRecord(attempt, result, startedAt));
    const written = await runInTransaction(this.deps.database.db, async (trx) => {
      const written = await this.deps.repo.recordAttempt(trx, delivery.id, {
        previousAttempts: attempt - 1,
        status,
        url: webhook.url,
        httpStatus: result.httpStatus,
        responseBody: result.responseBody,
        errorMessage: result.errorMessage,
        attemptLog: JSON.stringify(log),
        nextAttemptAt: delayMs === null ? null : new Date(now.getTime() + delayMs).toISOString(),
        deliveredAt: result.ok ? at : null,
        at,
      });
      if (!written) return false;
      if (delayMs !== null) {
        await this.deps.queue.send<DeliverJobData>(
          WEBHOOK_DELIVER_JOB,
          { deliveryId: delivery.id, attempt: attempt + 1 },
          { trx, startAfterMs: delayMs, singletonKey: `${delivery.id}:${attempt + 1}` },
        );
      }
      return true;
    });
    // Outside the transaction: every delivery to an endpoint updates its one stats row, and
    // holding that row's lock until commit would queue concurrent deliveries behind each other.
    // A crash between the two statements leaves the counters one attempt short.
    if (written) {
      this.deps.onAttempt?.(status === "pending" ? "retry" : status);
      await this.deps.repo.addStats(this.deps.database.db, webhook.id, {
        attempts: 1,
        succeeded: result.ok,
        failedForGood: status === "failed",
        at,
      });
    }
    return { result, at };
  }

  /** Closes a delivery whose job could not run (storage errors past the job's own retries). */
  async abandon(deliveryId: string, message: string): Promise<void> {
    const { db } = this.deps.database;
    const at = this.deps.clock.now().toISOString();
    const delivery = await this.deps.repo.findDelivery(db, deliveryId);
    if (delivery && (await this.deps.repo.closeDelivery(db, deliveryId, message, at))) {
      await this.deps.repo.addStats(db, delivery.webhook_id, {
        attempts: 0,
        succeeded: false,
        failedForGood: true,
        at,
      });
    }
  }

  /**
   * Deletes delivery records past the retention period, and the outbox events of that age that
   * were fanned out (an event not yet dispatched is kept whatever its age); returns how many
   * deliveries went.
   */
  async purge(): Promise<number> {
    const cutoffMs = this.deps.clock.now().getTime() - this.deps.retentionDays * 86_400_000;
    const cutoff = new Date(cutoffMs).toISOString();
    const { db } = this.deps.database;
    const drain = async (deleteChunk: () => Promise<number>) => {
      let total = 0;
      for (;;) {
        const n = await deleteChunk();
        total += n;
        if (n < PURGE_CHUNK) return total;
      }
    };
    await drain(() => this.deps.outbox.purgeDispatchedBefore(db, cutoff, PURGE_CHUNK));
    return drain(() => this.deps.repo.purgeDeliveriesBefore(db, cutoff, PURGE_CHUNK));
  }
}

export function newDeliveryRow(
  webhook: Pick<WebhooksTable, "id" | "account_id" | "url">,
  content: { eventId: string; event: string; payload: string },
  now: Date,
  extra: Partial<Pick<WebhookDeliveriesTable, "is_test" | "redelivery_of">> = {},
): WebhookDeliveriesTable {
  const at = now.toISOString();
  return {
    id: newId("dlv", now.getTime()),
    webhook_id: webhook.id,
    account_id: webhook.account_id,
    event_id: content.eventId,
    event: content.event,
    url: webhook.url,
    payload: content.payload,
    status: "pending",
    http_status: null,
    response_body: null,
    error_message: null,
    attempts: 0,
    attempt_log: "[]",
    is_test: extra.is_test ?? 0,
    redelivery_of: extra.redelivery_of ?? null,
    next_attempt_at: at,
    delivered_at: null,
    created_at: at,
    updated_at: at,
  };
}

function attemptRecord(attempt: number, result: AttemptResult, at: string): AttemptRecord {
  return {
    attempt,
    status: result.ok ? "success" : "failed",
    http_status: result.httpStatus,
    error_message: result.errorMessage,
    response_body: result.responseBody,
    response_truncated: result.responseTruncated,
    duration_ms: result.durationMs,
    attempted_at: at,
  };
}
