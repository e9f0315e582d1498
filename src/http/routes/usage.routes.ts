import { Type } from "@sinclair/typebox";
import { Day, UsageCounts } from "../../usage/usage.schemas.js";
import type { UsageService } from "../../usage/usage.service.js";
import { USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS } from "../../usage/usage.service.js";
import type { App } from "../app-types.js";
import { principalOf } from "../auth.js";
import { DATA_SECURITY } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface UsageRoutesDeps {
  usage: UsageService;
}

export async function usageRoutes(app: App, deps: UsageRoutesDeps): Promise<void> {
  app.get(
    "/v1/usage",
    {
      config: { auth: "data" as const, permission: "credits:read" },
      schema: {
        tags: ["credits"],
        security: DATA_SECURITY,
        operationId: "getUsage",
        summary: "Credits and validations per UTC day (from the credit ledger)",
        description: `Every day of [from, to] is listed, zeros included. Defaults: the last ${USAGE_DEFAULT_DAYS} days up to today; at most ${USAGE_MAX_DAYS} days.`,
        querystring: Type.Object({
          from: Type.Optional(Day),
          to: Type.Optional(Day),
          granularity: Type.Optional(Type.Literal("day", { default: "day" })),
        }),
        response: {
          200: Type.Object({
            from: Day,
            to: Day,
            granularity: Type.Literal("day"),
            days: Type.Array(Type.Object({ date: Day, ...UsageCounts })),
            totals: Type.Object(UsageCounts),
          }),
        },
      },
    },
    async (request) =>
      deps.usage.daily(principalOf(request).accountId, { from: request.query.from, to: request.query.to }),
  );
}
