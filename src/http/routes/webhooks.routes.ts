import { Type } from "@sinclair/typebox";
import {
  CreatedWebhook,
  Delivery,
  DeliveryParams,
  RotatedSecret,
  TestBody,
  TestResult,
  Webhook,
  WebhookCreateBody,
  WebhookParams,
  WebhookUpdateBody,
} from "../../webhooks/webhooks.schemas.js";
import type { WebhooksService } from "../../webhooks/webhooks.service.js";
import type { App } from "../app-types.js";
import { auditActorOf } from "../audit-actor.js";
import { principalOf } from "../auth.js";
import { DATA_SECURITY, Page, PageQuery } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface WebhooksRoutesDeps {
  webhooks: WebhooksService;
}

export async function webhooksRoutes(app: App, deps: WebhooksRoutesDeps): Promise<void> {
  const common = { tags: ["webhooks"], security: DATA_SECURITY };
  const config = { auth: "data" as const };
  const webhooks = deps.webhooks;

  app.post(
    "/v1/webhooks",
    {
      config: { ...config, permission: "webhooks:write" },
      schema: {
        ...common,
        operationId: "createWebhook",
        summary: "Register a webhook endpoint (the secret is shown only here and on rotation)",
        description:
          "Registers an endpoint URL for the chosen events. Deliveries are signed with the returned secret, which is shown only here and on rotation.",
        body: WebhookCreateBody,
        response: { 201: CreatedWebhook },
      },
    },
    async (request, reply) => {
      const webhook = await webhooks.create(
        principalOf(request).accountId,
        request.body,
        auditActorOf(request),
      );
      return reply.status(201).send(webhook);
    },
  );

  app.get(
    "/v1/webhooks",
    {
      config: { ...config, permission: "webhooks:read" },
      schema: {
        ...common,
        operationId: "listWebhooks",
        summary: "List webhook endpoints (without secrets)",
        description: "The account's webhook endpoints with their events and state, never their secrets.",
        response: { 200: Type.Object({ webhooks: Type.Array(Webhook), total: Type.Integer() }) },
      },
    },
    async (request) => webhooks.list(principalOf(request).accountId),
  );

  app.get(
    "/v1/webhooks/:webhook_id",
    {
      config: { ...config, permission: "webhooks:read" },
      schema: {
        ...common,
        operationId: "getWebhook",
        summary: "Get a webhook endpoint",
        description: "One webhook endpoint, without its secret. Another account's endpoint is 404.",
        params: WebhookParams,
        response: { 200: Webhook },
      },
    },
    async (request) => webhooks.get(principalOf(request).accountId, request.params.webhook_id),
  );

  app.patch(
    "/v1/webhooks/:webhook_id",
    {
      config: { ...config, permission: "webhooks:write" },
      schema: {
        ...common,
        operationId: "updateWebhook",
        summary: "Change a webhook endpoint (any of name, url, events, active, description, retry_config)",
        description: "Changes the given fields of a webhook endpoint; the others stay as they are.",
        params: WebhookParams,
        body: WebhookUpdateBody,
        response: { 200: Webhook },
      },
    },
    async (request) =>
      webhooks.update(
        principalOf(request).accountId,
        request.params.webhook_id,
        request.body,
        auditActorOf(request),
      ),
  );

  app.delete(
    "/v1/webhooks/:webhook_id",
    {
      config: { ...config, permission: "webhooks:write" },
      schema: {
        ...common,
        operationId: "deleteWebhook",
        summary: "Delete a webhook endpoint and its delivery history",
        description: "Deletes the endpoint and its delivery history; nothing more is delivered to it.",
        params: WebhookParams,
        response: { 200: Type.Object({ message: Type.String(), webhook_id: Type.String() }) },
      },
    },
    async (request) => {
      await webhooks.remove(principalOf(request).accountId, request.params.webhook_id, auditActorOf(request));
      return { message: "Webhook deleted", webhook_id: request.params.webhook_id };
    },
  );

  app.post(
    "/v1/webhooks/:webhook_id/rotate-secret",
    {
      config: { ...config, permission: "webhooks:write" },
      schema: {
        ...common,
        operationId: "rotateWebhookSecret",
        summary: "Replace the signing secret at once",
        description:
          "Issues a new signing secret, returned once; deliveries from now on are signed with it only.",
        params: WebhookParams,
        response: { 200: RotatedSecret },
      },
    },
    async (request) =>
      webhooks.rotateSecret(principalOf(request).accountId, request.params.webhook_id, auditActorOf(request)),
  );

  app.post(
    "/v1/webhooks/:webhook_id/test",
    {
      config: { ...config, permission: "webhooks:write" },
      schema: {
        ...common,
        operationId: "testWebhook",
        summary: "Send a signed test delivery of an event kind now and report the outcome",
        description:
          "Sends a signed delivery of the given event kind with test set to true, and reports the endpoint's answer.",
        params: WebhookParams,
        body: TestBody,
        response: { 200: TestResult },
      },
    },
    async (request) =>
      webhooks.test(principalOf(request).accountId, request.params.webhook_id, request.body.event),
  );

  app.get(
    "/v1/webhooks/:webhook_id/deliveries",
    {
      config: { ...config, permission: "webhooks:read" },
      schema: {
        ...common,
        operationId: "listWebhookDeliveries",
        summary: "Delivery records of an endpoint, newest first (kept 30 days)",
        description:
          "The endpoint's delivery attempts with their status and answers, newest first, paged; records are kept 30 days.",
        params: WebhookParams,
        querystring: PageQuery,
        response: {
          200: Page("deliveries", Delivery),
        },
      },
    },
    async (request) =>
      webhooks.listDeliveries(principalOf(request).accountId, request.params.webhook_id, request.query),
  );

  app.post(
    "/v1/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
    {
      config: { ...config, permission: "webhooks:write" },
      schema: {
        ...common,
        operationId: "redeliverWebhookDelivery",
        summary: "Send a delivery again as a new delivery (same body and event id, new delivery id)",
        description:
          "Sends an earlier delivery's body again under the same event id and a new delivery id, so receivers can deduplicate on the event id.",
        params: DeliveryParams,
        response: { 202: Delivery },
      },
    },
    async (request, reply) => {
      const { webhook_id, delivery_id } = request.params;
      const delivery = await webhooks.redeliver(principalOf(request).accountId, webhook_id, delivery_id);
      return reply.status(202).send(delivery);
    },
  );
}
