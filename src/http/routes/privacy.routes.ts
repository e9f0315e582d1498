// Personal data routes (issue 25): erasure of one lead, retention settings, the account export.
import {
  ErasePersonBody,
  ErasePersonResult,
  ErasureResult,
  LeadParams,
} from "../../erasure/erasure.schemas.js";
import type { ErasureService } from "../../erasure/erasure.service.js";
import { notFound } from "../../lib/errors.js";
import { RetentionSettings, RetentionUpdate } from "../../retention/retention.schemas.js";
import type { RetentionService } from "../../retention/retention.service.js";
import type { App } from "../app-types.js";
import { auditActorOf } from "../audit-actor.js";
import { principalOf } from "../auth.js";
import { DATA_SECURITY } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface PrivacyRoutesDeps {
  erasure: ErasureService;
  retention: RetentionService;
}

export async function privacyRoutes(app: App, deps: PrivacyRoutesDeps): Promise<void> {
  const common = { tags: ["data"], security: DATA_SECURITY };
  const config = { auth: "data" as const };

  app.post(
    "/v1/leads/:lead_id/erase",
    {
      config: { ...config, permission: "data:admin" },
      schema: {
        ...common,
        operationId: "eraseLead",
        summary: "Erase a person: the lead and every copy of its data",
        description:
          "Removes the lead (archived or not) and its data from the search index, batch items, events, webhook deliveries, job payloads, one-off checks and stored exports, keeps a tombstone with a keyed hash of the address, and records the erasure in the audit log. Idempotent; an unknown lead is 404.",
        params: LeadParams,
        response: { 200: ErasureResult },
      },
    },
    async (request) => {
      const outcome = await deps.erasure.erase(
        principalOf(request).accountId,
        request.params.lead_id,
        auditActorOf(request),
      );
      if (outcome.kind === "not_found") throw notFound("Lead");
      const { kind: _kind, ...body } = outcome;
      return body;
    },
  );

  app.post(
    "/v1/leads/erase",
    {
      config: { ...config, permission: "data:admin" },
      schema: {
        ...common,
        operationId: "erasePerson",
        summary: "Erase a person by email: every lead with this address, and every copy of its data",
        description:
          "Finds the account's leads (archived ones too) with this mailbox, aliases folded, and erases each as POST /v1/leads/{leadId}/erase does. No lead with this address is 404.",
        body: ErasePersonBody,
        response: { 200: ErasePersonResult },
      },
    },
    async (request) => {
      const outcome = await deps.erasure.eraseByEmail(
        principalOf(request).accountId,
        request.body.email,
        auditActorOf(request),
      );
      if (outcome.kind === "not_found") throw notFound("Lead with this email");
      return {
        email: outcome.email,
        leads: outcome.leads.map(({ kind: _kind, ...body }) => body),
      };
    },
  );

  app.get(
    "/v1/settings/retention",
    {
      config: { ...config, permission: "data:admin" },
      schema: {
        ...common,
        operationId: "getRetention",
        summary: "How long the account's data is kept",
        description:
          "Days to keep archived leads, batch item details, webhook delivery bodies and audit entries (server defaults until set), and whether erased addresses are refused later.",
        response: { 200: RetentionSettings },
      },
    },
    async (request) => deps.retention.get(principalOf(request).accountId),
  );

  app.put(
    "/v1/settings/retention",
    {
      config: { ...config, permission: "data:admin" },
      schema: {
        ...common,
        operationId: "setRetention",
        summary: "Change how long the account's data is kept",
        description:
          "Sets any of the retention periods (0 keeps forever) and the suppression of erased addresses. The daily purge applies them; the change is audited.",
        body: RetentionUpdate,
        response: { 200: RetentionSettings },
      },
    },
    async (request) =>
      deps.retention.update(principalOf(request).accountId, request.body, auditActorOf(request)),
  );
}
