// Wires the webhooks module from configuration: the sender (over the guarded HTTP client the
// composition root gives it), the dispatcher (background side), the service (API side) and the
// job definitions for the catalog.

import type { AuditTrail } from "../audit/audit.service.js";
import type { Config } from "../config/config.js";
import type { EventBus } from "../events/events.js";
import type { EventsRepo } from "../events/events.repo.js";
import type { Module } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { Clock } from "../lib/clock.js";
import type { HttpClient } from "../net/http-client.js";
import type { Database } from "../storage/db.js";
import { webhookJobDefinitions } from "./webhook.jobs.js";
import { WebhookDispatcher, type WebhookDispatcherDeps } from "./webhook-dispatcher.js";
import { WebhookSender } from "./webhook-sender.js";
import { WebhooksRepo } from "./webhooks.repo.js";
import { WebhooksService } from "./webhooks.service.js";

export interface WebhooksModuleDeps {
  config: Pick<Config, "webhooks">;
  database: Database;
  queue: JobQueue;
  clock: Clock;
  events: EventBus;
  /** The events outbox (the bus writes it, the dispatcher drains it). */
  outbox: EventsRepo;
  /** Every delivery and URL check goes through it: the SSRF guard's settings are the wiring's. */
  client: HttpClient;
  /** Told of every recorded delivery attempt's outcome (metrics). */
  onAttempt?: WebhookDispatcherDeps["onAttempt"];
  /** Where errors that no caller sees go: the process's logger. */
  onError?: (error: unknown, context: string) => void;
  /** Endpoint changes and secret rotations are recorded here. */
  audit: AuditTrail;
}

export function createWebhooks(deps: WebhooksModuleDeps): Module<{ webhooks: WebhooksService }> {
  const settings = deps.config.webhooks;
  const repo = new WebhooksRepo();
  const sender = new WebhookSender({
    client: deps.client,
    timeoutMs: settings.timeoutMs,
    responseBodyMaxBytes: settings.responseBodyMaxBytes,
  });
  const dispatcher = new WebhookDispatcher({
    database: deps.database,
    outbox: deps.outbox,
    repo,
    queue: deps.queue,
    clock: deps.clock,
    sender,
    retentionDays: settings.deliveryRetentionDays,
    onAttempt: deps.onAttempt,
  });
  const webhooks = new WebhooksService({
    database: deps.database,
    repo,
    clock: deps.clock,
    queue: deps.queue,
    events: deps.events,
    sender,
    dispatcher,
    ...(deps.onError ? { onError: deps.onError } : {}),
    audit: deps.audit,
  });
  const jobs = webhookJobDefinitions(dispatcher, {
    timeoutMs: settings.timeoutMs,
    deliveryConcurrency: settings.deliveryConcurrency,
    dispatchIntervalMs: settings.dispatchIntervalMs,
    purgeIntervalMs: settings.purgeIntervalMs,
  });
  return { services: { webhooks }, jobs, close: () => webhooks.close() };
}
