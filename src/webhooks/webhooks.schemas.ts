// Wire shapes of the webhook endpoints (spec "Webhook", "Delivery record"; snake_case as the spec).
import { Type } from "@sinclair/typebox";
import { EVENT_TYPES, type EventType } from "../events/events.js";
import { Nullable, Timestamp } from "../lib/schema.js";
import { MAX_RETRIES, MAX_RETRY_DELAY_MS } from "./retry-config.js";
import { MAX_WEBHOOK_URL_LENGTH } from "./webhook-sender.js";

// One `enum` keyword rather than a union of literals: one clear error for a wrong kind.
const EventKind = Type.Unsafe<EventType>({
  type: "string",
  enum: [...EVENT_TYPES],
  description: "One of the eleven event kinds",
});

const RetryConfigBody = Type.Object(
  {
    max_retries: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_RETRIES })),
    retry_delays: Type.Optional(
      Type.Array(Type.Integer({ minimum: 0, maximum: MAX_RETRY_DELAY_MS }), {
        maxItems: MAX_RETRIES,
        description: "Milliseconds before each retry; at most max_retries entries, the last repeats",
      }),
    ),
  },
  { additionalProperties: true },
);

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Url = Type.String({
  minLength: 1,
  maxLength: MAX_WEBHOOK_URL_LENGTH,
  description: "HTTPS recommended",
});
const Events = Type.Array(EventKind, { minItems: 1, maxItems: 50 });
// One `type` list, not anyOf: with type coercion on, anyOf would turn null into "".
const Description = Type.Unsafe<string | null>({ type: ["string", "null"], maxLength: 500 });

export const WebhookCreateBody = Type.Object(
  {
    name: Name,
    url: Url,
    events: Events,
    active: Type.Optional(Type.Boolean({ default: true })),
    description: Type.Optional(Description),
    retry_config: Type.Optional(RetryConfigBody),
  },
  { additionalProperties: true },
);

export const WebhookUpdateBody = Type.Object(
  {
    name: Type.Optional(Name),
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    active: Type.Optional(Type.Boolean()),
    description: Type.Optional(Description),
    retry_config: Type.Optional(RetryConfigBody),
  },
  { additionalProperties: true },
);

export const Webhook = Type.Object({
  webhook_id: Type.String(),
  user_id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
  description: Nullable(Type.String()),
  retry_config: Type.Object({ max_retries: Type.Integer(), retry_delays: Type.Array(Type.Integer()) }),
  delivery_stats: Type.Object({
    total_attempts: Type.Integer(),
    successful_deliveries: Type.Integer(),
    failed_deliveries: Type.Integer(),
    last_delivery: Nullable(Timestamp),
    last_success: Nullable(Timestamp),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreatedWebhook = Type.Intersect([
  Webhook,
  Type.Object({ secret: Type.String({ description: "whsec_...; shown only in this response" }) }),
]);

const Attempt = Type.Object({
  attempt: Type.Integer(),
  status: Type.String({ description: "success or failed" }),
  http_status: Nullable(Type.Integer()),
  error_message: Nullable(Type.String()),
  response_body: Nullable(Type.String()),
  response_truncated: Type.Boolean(),
  duration_ms: Type.Integer(),
  attempted_at: Timestamp,
});

export const Delivery = Type.Object({
  delivery_id: Type.String(),
  webhook_id: Type.String(),
  event: Type.String(),
  event_id: Type.String({ description: "The event's id, the same in every delivery of the event" }),
  url: Type.String(),
  status: Type.String({ description: "pending (attempts left), success or failed" }),
  http_status: Nullable(Type.Integer()),
  response_body: Nullable(Type.String({ description: "The receiver's last answer, truncated" })),
  error_message: Nullable(Type.String()),
  attempts: Type.Integer(),
  attempt_log: Type.Array(Attempt),
  test: Type.Boolean(),
  redelivery_of: Nullable(Type.String()),
  next_attempt_at: Nullable(Timestamp),
  delivered_at: Nullable(Timestamp),
  created_at: Timestamp,
});

export const TestBody = Type.Object({ event: EventKind }, { additionalProperties: true });

export const TestResult = Type.Object({
  success: Type.Boolean(),
  response_time_ms: Type.Integer(),
  event: Type.String(),
  delivered_at: Nullable(Timestamp),
  delivery_id: Type.String(),
  http_status: Nullable(Type.Integer()),
  error_message: Nullable(Type.String()),
});

export const RotatedSecret = Type.Object({
  webhook_id: Type.String(),
  secret: Type.String({ description: "whsec_...; replaces the old secret at once" }),
  rotated_at: Timestamp,
});

export const WebhookParams = Type.Object({ webhook_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const DeliveryParams = Type.Object({
  webhook_id: Type.String({ minLength: 1, maxLength: 100 }),
  delivery_id: Type.String({ minLength: 1, maxLength: 100 }),
});
