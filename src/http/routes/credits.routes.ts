import { balanceBody, CreditBalance, Transaction, toTransactionView } from "../../credits/credits.schemas.js";
import type { CreditsService } from "../../credits/credits.service.js";
import { pageOf } from "../../lib/schema.js";
import type { App } from "../app-types.js";
import { principalOf } from "../auth.js";
import { DATA_SECURITY, Page, PageQuery } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface CreditsRoutesDeps {
  credits: CreditsService;
}

export async function creditsRoutes(app: App, deps: CreditsRoutesDeps): Promise<void> {
  const common = { tags: ["credits"], security: DATA_SECURITY };
  const config = { auth: "data" as const };

  app.get(
    "/v1/credits",
    {
      config: { ...config, permission: "credits:read" },
      schema: {
        ...common,
        operationId: "getCredits",
        summary: "Credit balance",
        description:
          "The account's balance in stored and display credits, what was spent this month and the latest purchase or grant.",
        response: { 200: CreditBalance },
      },
    },
    async (request) => balanceBody(await deps.credits.balance(principalOf(request).accountId)),
  );

  app.get(
    "/v1/credits/transactions",
    {
      config: { ...config, permission: "credits:read" },
      schema: {
        ...common,
        operationId: "listCreditTransactions",
        summary: "Credit ledger, newest first",
        description:
          "Every change to the balance (signup, grant, purchase, debit), newest first, with the balance after it; paged by limit and offset.",
        querystring: PageQuery,
        response: {
          200: Page("transactions", Transaction),
        },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { entries, total } = await deps.credits.transactions(
        principalOf(request).accountId,
        limit,
        offset,
      );
      return pageOf("transactions", entries.map(toTransactionView), total, { limit, offset });
    },
  );
}
