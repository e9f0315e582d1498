// The account's re-validation schedule (issue 26): GET and PUT /v1/settings/revalidation.

import { invalid } from "../../lib/errors.js";
import { RevalidationBody, RevalidationResponse } from "../../revalidation/revalidation.schemas.js";
import type { RevalidationService } from "../../revalidation/revalidation.service.js";
import type { App } from "../app-types.js";
import { auditActorOf } from "../audit-actor.js";
import { principalOf } from "../auth.js";
import { DATA_SECURITY } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface RevalidationRoutesDeps {
  revalidation: RevalidationService;
}

export async function revalidationRoutes(app: App, deps: RevalidationRoutesDeps): Promise<void> {
  const common = { tags: ["leads"], security: DATA_SECURITY };
  const config = { auth: "data" as const };

  app.get(
    "/v1/settings/revalidation",
    {
      config: { ...config, permission: "leads:read" },
      schema: {
        ...common,
        operationId: "getRevalidation",
        summary: "The account's re-validation schedule (null when off)",
        description:
          "With a schedule, leads whose last validation (`validatedAt`) is older than `olderThanDays` are validated again every `everyHours`, oldest verdicts first, up to `maxCreditsPerRun` per run. Each run is a normal lead-validation batch: charged upfront and evented like one. Leads never validated are not touched.",
        response: { 200: RevalidationResponse },
      },
    },
    async (request) => deps.revalidation.get(principalOf(request).accountId),
  );

  app.put(
    "/v1/settings/revalidation",
    {
      config: { ...config, permission: "leads:write" },
      schema: {
        ...common,
        operationId: "setRevalidation",
        summary: "Set or turn off the re-validation schedule",
        description:
          "`{ olderThanDays, everyHours, maxCreditsPerRun }` sets the schedule (a new one first runs within a few minutes; a changed one keeps its rhythm from the last run); `null` turns it off. The change is audited.",
        body: RevalidationBody,
        response: { 200: RevalidationResponse },
      },
    },
    async (request) => {
      // Fastify validates no schema against an absent body: say what is missing (never a 500).
      if (request.body === undefined)
        throw invalid(
          [{ field: "", message: "send the schedule, or null to turn it off", type: "required" }],
          "A body is required: { olderThanDays, everyHours, maxCreditsPerRun } or null",
        );
      return deps.revalidation.set(principalOf(request).accountId, request.body, auditActorOf(request));
    },
  );
}
