import { Type } from "@sinclair/typebox";
import { balanceBody, CreditBalance } from "../../credits/credits.schemas.js";
import type { CreditsService } from "../../credits/credits.service.js";
import { milliFromStoredCredits } from "../../credits/credits.service.js";
import { invalid } from "../../lib/errors.js";
import type { App } from "../app-types.js";
import { auditActorOf } from "../audit-actor.js";
import { BEARER_SECURITY } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface AdminRoutesDeps {
  credits: CreditsService;
}

export async function adminRoutes(app: App, deps: AdminRoutesDeps): Promise<void> {
  app.post(
    "/v1/admin/accounts/:userId/credits",
    {
      config: { auth: "admin", permission: "admin" },
      schema: {
        tags: ["admin"],
        operationId: "grantCredits",
        summary: "Grant credits to an account (payment systems plug in here)",
        description:
          "Adds credits to an account as a ledger entry, for operators and external billing systems. Takes the ADMIN_TOKEN bearer token.",
        security: BEARER_SECURITY,
        params: Type.Object({
          userId: Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9._:@|-]+$" }),
        }),
        body: Type.Object({
          credits: Type.Number({
            exclusiveMinimum: 0,
            maximum: 1_000_000_000,
            description: "Stored credits",
          }),
          reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
        }),
        response: { 200: CreditBalance },
      },
    },
    async (request) => {
      const milli = milliFromStoredCredits(request.body.credits);
      if (milli === undefined || milli <= 0) {
        throw invalid([
          { field: "credits", message: "must be a multiple of 0.001 stored credits", type: "multipleOf" },
        ]);
      }
      const balance = await deps.credits.grant(
        request.params.userId,
        milli,
        request.body.reason ?? "Admin grant",
        auditActorOf(request),
      );
      return balanceBody(balance);
    },
  );
}
