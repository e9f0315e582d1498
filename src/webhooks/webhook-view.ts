// Rows to the wire shapes of the spec's "Webhook" and "Delivery record" (snake_case, as the spec).
import type { WebhookDeliveriesTable, WebhooksTable } from "../storage/schema.js";
import type { RetryConfig } from "./retry-config.js";

interface DeliveryStats {
  total_attempts: number;
  successful_deliveries: number;
  failed_deliveries: number;
  last_delivery: string | null;
  last_success: string | null;
}

export interface WebhookView {
  webhook_id: string;
  user_id: string;
  name: string;
  url: string;
  events: string[];
  active: boolean;
  description: string | null;
  retry_config: RetryConfig;
  delivery_stats: DeliveryStats;
  created_at: string;
  updated_at: string;
}

export interface AttemptRecord {
  attempt: number;
  status: "success" | "failed";
  http_status: number | null;
  error_message: string | null;
  response_body: string | null;
  response_truncated: boolean;
  duration_ms: number;
  attempted_at: string;
}

export interface DeliveryView {
  delivery_id: string;
  webhook_id: string;
  event: string;
  event_id: string;
  url: string;
  status: WebhookDeliveriesTable["status"];
  http_status: number | null;
  response_body: string | null;
  error_message: string | null;
  attempts: number;
  attempt_log: AttemptRecord[];
  test: boolean;
  redelivery_of: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
}

export function retryConfigOf(row: Pick<WebhooksTable, "max_retries" | "retry_delays">): RetryConfig {
  return { max_retries: Number(row.max_retries), retry_delays: JSON.parse(row.retry_delays) as number[] };
}

export function eventsOf(row: Pick<WebhooksTable, "events">): string[] {
  return JSON.parse(row.events) as string[];
}

export function toWebhookView(row: WebhooksTable): WebhookView {
  return {
    webhook_id: row.id,
    user_id: row.account_id,
    name: row.name,
    url: row.url,
    events: eventsOf(row),
    active: Number(row.active) === 1,
    description: row.description,
    retry_config: retryConfigOf(row),
    delivery_stats: {
      total_attempts: Number(row.total_attempts),
      successful_deliveries: Number(row.successful_deliveries),
      failed_deliveries: Number(row.failed_deliveries),
      last_delivery: row.last_delivery_at,
      last_success: row.last_success_at,
    },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toDeliveryView(row: WebhookDeliveriesTable): DeliveryView {
  return {
    delivery_id: row.id,
    webhook_id: row.webhook_id,
    event: row.event,
    event_id: row.event_id,
    url: row.url,
    status: row.status,
    http_status: row.http_status === null ? null : Number(row.http_status),
    response_body: row.response_body,
    error_message: row.error_message,
    attempts: Number(row.attempts),
    attempt_log: JSON.parse(row.attempt_log) as AttemptRecord[],
    test: Number(row.is_test) === 1,
    redelivery_of: row.redelivery_of,
    next_attempt_at: row.next_attempt_at,
    delivered_at: row.delivered_at,
    created_at: row.created_at,
  };
}
