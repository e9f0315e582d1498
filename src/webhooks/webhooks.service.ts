// Webhook endpoint rules (spec "Webhook", webhook endpoints, decisions §6): SSRF-checked URLs,
// the eleven event kinds, bounded retry schedules, `whsec_` secrets shown only on creation and
// rotation, test deliveries, delivery history and redelivery. Another account's endpoint is the
// same 404 as a missing one. Also the ad-hoc `webhookUrl` callbacks of other endpoints.

import type { Transaction } from "kysely";
import type { AuditActor, AuditTrail } from "../audit/audit.service.js";
import { EVENT_TYPES, type EventBus, type EventType } from "../events/events.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { Clock } from "../lib/clock.js";
import { PacedRun } from "../lib/concurrency.js";
import { isTestSpace, liveAccountOf } from "../lib/data-space.js";
import { conflict, type FieldError, fail, invalid, notFound } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { type PageWindow, pageOf } from "../lib/schema.js";
import type { Database } from "../storage/db.js";
import type { Schema, WebhooksTable } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import { normalizeRetryConfig, type RetryConfig, type RetryConfigInput } from "./retry-config.js";
import { newWebhookSecret } from "./signature.js";
import { sendDispatchHint } from "./webhook.jobs.js";
import {
  type DeliverJobData,
  newDeliveryRow,
  WEBHOOK_DELIVER_JOB,
  type WebhookDispatcher,
} from "./webhook-dispatcher.js";
import type { AttemptResult, WebhookSender } from "./webhook-sender.js";
import { type DeliveryView, toDeliveryView, toWebhookView, type WebhookView } from "./webhook-view.js";
import type { WebhookChanges, WebhooksRepo } from "./webhooks.repo.js";

const MAX_WEBHOOKS_PER_ACCOUNT = 25;

export interface WebhookCreateInput {
  name: string;
  url: string;
  events: string[];
  active?: boolean;
  description?: string | null;
  retry_config?: RetryConfigInput;
}

export type WebhookUpdateInput = Partial<WebhookCreateInput>;

interface CreatedWebhook extends WebhookView {
  secret: string;
}

export interface TestDeliveryResult {
  success: boolean;
  response_time_ms: number;
  event: string;
  delivered_at: string | null;
  delivery_id: string;
  http_status: number | null;
  error_message: string | null;
}

export interface WebhooksDeps {
  /** Its repository, built by the module's factory. */
  repo: WebhooksRepo;
  database: Database;
  clock: Clock;
  queue: JobQueue;
  events: EventBus;
  sender: WebhookSender;
  dispatcher: WebhookDispatcher;
  /** Where errors that no caller sees go (a failed dispatch hint): the process's logger. */
  onError?: (error: unknown, context: string) => void;
  /** Where endpoint changes and rotations are recorded, in the change's transaction. */
  audit?: AuditTrail;
}

/** Least time between two dispatch hints of one process. */
const HINT_INTERVAL_MS = 20;

const isEventType = (e: string): e is EventType => (EVENT_TYPES as readonly string[]).includes(e);

export class WebhooksService {
  /** Dispatch hints, coalesced and paced (see the constructor). */
  private readonly hints: PacedRun;
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: WebhooksDeps) {
    // The bus calls the listener after the events' transaction committed, so the dispatch job finds
    // them. The first event after a quiet spell is hinted at once; under a stream of events, hints
    // go at most once per HINT_INTERVAL_MS, each covering all events committed before it was sent.
    // A hint is a job (an insert, and a claim and a dispatch run by a worker): one per created lead
    // cost more than creating the lead did (ADR 0006). With no queue in this process (a CLI
    // command), the workers' sweep picks the events up.
    this.hints = new PacedRun(() => sendDispatchHint(deps.queue), {
      minIntervalMs: HINT_INTERVAL_MS,
      onError: (error) => deps.onError?.(error, "webhook dispatch hint not sent; the sweep will"),
    });
    this.unsubscribe = deps.events.subscribe(() => this.hints.request());
  }

  async create(accountId: string, input: WebhookCreateInput, actor?: AuditActor): Promise<CreatedWebhook> {
    const errors: FieldError[] = [];
    const events = this.checkEvents(input.events, errors);
    const retry = this.checkRetry(input.retry_config, errors);
    const url = await this.checkUrl(input.url, "url", errors);
    if (errors.length > 0 || !retry || !url) throw invalid(errors);
    const { db, caps } = this.deps.database;
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const row: WebhooksTable = {
      id: newId("wh", now.getTime()),
      account_id: accountId,
      name: input.name,
      url,
      description: input.description ?? null,
      events: JSON.stringify(events),
      active: input.active === false ? 0 : 1,
      secret: newWebhookSecret(),
      max_retries: retry.max_retries,
      retry_delays: JSON.stringify(retry.retry_delays),
      total_attempts: 0,
      successful_deliveries: 0,
      failed_deliveries: 0,
      last_delivery_at: null,
      last_success_at: null,
      secret_rotated_at: null,
      created_at: at,
      updated_at: at,
    };
    // Count and insert under the account's lock: two creates at the limit cannot both pass.
    // Refuses one more than MAX_WEBHOOKS_PER_ACCOUNT (`webhook_limit`).
    return runInTransaction(db, async (trx): Promise<CreatedWebhook> => {
      await this.deps.repo.lockAccountEndpoints(trx, caps, accountId);
      if ((await this.deps.repo.countWebhooks(trx, accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
        throw fail({ kind: "webhook_limit", limit: MAX_WEBHOOKS_PER_ACCOUNT });
      }
      await this.deps.repo.insertWebhook(trx, row);
      await this.audited(trx, accountId, actor, "webhook.created", row.id, {
        name: row.name,
        url: row.url,
        events,
      });
      return { ...toWebhookView(row), secret: row.secret };
    });
  }

  async list(accountId: string): Promise<{ webhooks: WebhookView[]; total: number }> {
    const rows = await this.deps.repo.listWebhooks(this.deps.database.db, accountId);
    return { webhooks: rows.map(toWebhookView), total: rows.length };
  }

  async get(accountId: string, webhookId: string): Promise<WebhookView> {
    return toWebhookView(await this.find(accountId, webhookId));
  }

  async update(
    accountId: string,
    webhookId: string,
    input: WebhookUpdateInput,
    actor?: AuditActor,
  ): Promise<WebhookView> {
    const current = await this.find(accountId, webhookId);
    const errors: FieldError[] = [];
    const changes: WebhookChanges = { updated_at: this.deps.clock.now().toISOString() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    if (input.active !== undefined) changes.active = input.active ? 1 : 0;
    if (input.events !== undefined) changes.events = JSON.stringify(this.checkEvents(input.events, errors));
    if (input.retry_config !== undefined) {
      const retry = this.checkRetry(input.retry_config, errors);
      if (retry) Object.assign(changes, retryColumns(retry));
    }
    if (input.url !== undefined && input.url !== current.url) {
      const url = await this.checkUrl(input.url, "url", errors);
      if (url) changes.url = url;
    }
    if (errors.length > 0) throw invalid(errors);
    const row = await runInTransaction(this.deps.database.db, async (trx) => {
      const updated = await this.deps.repo.updateWebhook(trx, accountId, webhookId, changes);
      if (updated) {
        const changed = Object.keys(changes).filter((field) => field !== "updated_at");
        await this.audited(trx, accountId, actor, "webhook.updated", webhookId, {
          changed,
          url: updated.url,
        });
      }
      return updated;
    });
    if (!row) throw notFound("Webhook");
    return toWebhookView(row);
  }

  async remove(accountId: string, webhookId: string, actor?: AuditActor): Promise<void> {
    const removed = await runInTransaction(this.deps.database.db, async (trx) => {
      const deleted = await this.deps.repo.deleteWebhook(trx, accountId, webhookId);
      if (deleted) await this.audited(trx, accountId, actor, "webhook.deleted", webhookId, {});
      return deleted;
    });
    if (!removed) throw notFound("Webhook");
  }

  /** A new secret replaces the old one at once: the next attempt of every delivery signs with it. */
  async rotateSecret(accountId: string, webhookId: string, actor?: AuditActor) {
    const secret = newWebhookSecret();
    const at = this.deps.clock.now().toISOString();
    const row = await runInTransaction(this.deps.database.db, async (trx) => {
      const rotated = await this.deps.repo.rotateSecret(trx, accountId, webhookId, secret, at);
      if (rotated) await this.audited(trx, accountId, actor, "webhook.secret_rotated", webhookId, {});
      return rotated;
    });
    if (!row) throw notFound("Webhook");
    return { webhook_id: row.id, secret, rotated_at: at };
  }

  private async audited(
    trx: Transaction<Schema>,
    accountId: string,
    actor: AuditActor | undefined,
    action: string,
    webhookId: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    if (!actor || !this.deps.audit) return;
    await this.deps.audit.record(trx, accountId, {
      actor,
      action,
      target: { kind: "webhook", id: webhookId },
      details,
    });
  }

  /** Sends a signed sample of `event` now, once, and records it in the delivery history. */
  async test(accountId: string, webhookId: string, event: string): Promise<TestDeliveryResult> {
    if (!isEventType(event)) throw invalid([eventError("event", event)]);
    const webhook = await this.find(accountId, webhookId);
    const now = this.deps.clock.now();
    const eventId = newId("evt", now.getTime());
    const payload = {
      event,
      eventId,
      userId: liveAccountOf(accountId),
      livemode: !isTestSpace(accountId),
      test: true,
      message: `Test delivery of ${event} from leadcheck`,
      timestamp: now.toISOString(),
      data: { leadId: "lead_example", deliverabilityRating: 87, emailValid: true, domainHttpStatus: 200 },
    };
    const row = newDeliveryRow(webhook, { eventId, event, payload: JSON.stringify(payload) }, now, {
      is_test: 1,
    });
    await this.deps.repo.insertDelivery(this.deps.database.db, row);
    const { result, at } = await this.deps.dispatcher.attempt(row, webhook, 1, false);
    return {
      success: result.ok,
      response_time_ms: result.durationMs,
      event,
      delivered_at: result.ok ? at : null,
      delivery_id: row.id,
      http_status: result.httpStatus,
      error_message: result.errorMessage,
    };
  }

  async listDeliveries(accountId: string, webhookId: string, page: PageWindow) {
    await this.find(accountId, webhookId);
    const { db } = this.deps.database;
    const [rows, total] = await Promise.all([
      this.deps.repo.listDeliveries(db, webhookId, page.limit, page.offset),
      this.deps.repo.countDeliveries(db, webhookId),
    ]);
    return pageOf("deliveries", rows.map(toDeliveryView), total, page);
  }

  /** Queues a new delivery of the same event (same body and event id, new delivery id). */
  async redeliver(accountId: string, webhookId: string, deliveryId: string): Promise<DeliveryView> {
    const webhook = await this.find(accountId, webhookId);
    const { db } = this.deps.database;
    const original = await this.deps.repo.findDeliveryOfWebhook(db, accountId, webhookId, deliveryId);
    if (!original) throw notFound("Delivery");
    if (Number(webhook.active) !== 1) {
      throw conflict("The webhook is inactive: activate it to redeliver", {
        webhook_id: webhookId,
      });
    }
    const row = newDeliveryRow(
      webhook,
      { eventId: original.event_id, event: original.event, payload: original.payload },
      this.deps.clock.now(),
      { redelivery_of: original.id, is_test: original.is_test },
    );
    await runInTransaction(db, async (trx) => {
      await this.deps.repo.insertDelivery(trx, row);
      await this.deps.queue.send<DeliverJobData>(
        WEBHOOK_DELIVER_JOB,
        { deliveryId: row.id, attempt: 1 },
        { trx },
      );
    });
    return toDeliveryView(row);
  }

  /** For request-time checks of `webhookUrl`: the guard's verdict, without throwing. */
  checkCallbackUrl(url: string) {
    return this.deps.sender.checkUrl(url);
  }

  /** Throws the 422 of a `webhookUrl` the guard refuses. */
  async assertCallbackUrl(url: string, field = "webhookUrl"): Promise<string> {
    const verdict = await this.deps.sender.checkUrl(url);
    if (!verdict.ok) throw invalid([{ field, message: verdict.message, type: "url" }]);
    return verdict.url;
  }

  /** An ad-hoc `webhookUrl` callback: unsigned, sent once, no retries; never throws. */
  sendAdHocCallback(url: string, payload: Record<string, unknown>): Promise<AttemptResult> {
    return this.deps.sender.sendUnsigned(url, payload);
  }

  /** Seeds the recurring dispatch sweep and purge (idempotent; every worker process calls it). */
  close(): void {
    this.unsubscribe();
    void this.hints.close();
  }

  private async find(accountId: string, webhookId: string): Promise<WebhooksTable> {
    const row = await this.deps.repo.findWebhook(this.deps.database.db, accountId, webhookId);
    if (!row) throw notFound("Webhook");
    return row;
  }

  private checkEvents(events: string[], errors: FieldError[]): EventType[] {
    const unknown = events.filter((e) => !isEventType(e));
    for (const e of unknown) errors.push(eventError(`events.${events.indexOf(e)}`, e));
    if (events.length === 0)
      errors.push({ field: "events", message: "must name at least one event", type: "minItems" });
    return [...new Set(events.filter(isEventType))];
  }

  private checkRetry(input: RetryConfigInput, errors: FieldError[]): RetryConfig | undefined {
    const result = normalizeRetryConfig(input);
    if (result.ok) return result.config;
    errors.push(...result.errors);
    return undefined;
  }

  private async checkUrl(raw: string, field: string, errors: FieldError[]): Promise<string | undefined> {
    const verdict = await this.deps.sender.checkUrl(raw);
    if (verdict.ok) return verdict.url;
    errors.push({ field, message: verdict.message, type: "url" });
    return undefined;
  }
}

function retryColumns(config: RetryConfig): Pick<WebhooksTable, "max_retries" | "retry_delays"> {
  return { max_retries: config.max_retries, retry_delays: JSON.stringify(config.retry_delays) };
}

function eventError(field: string, value: string): FieldError {
  return {
    field,
    message: `unknown event "${value}"; expected one of ${EVENT_TYPES.join(", ")}`,
    type: "enum",
  };
}
