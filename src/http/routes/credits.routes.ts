import { Type } from "@sinclair/typebox";
import type { CreditsService } from "../../credits/credits.service.js";
import { toStoredCredits } from "../../credits/credits.service.js";
import type { App } from "../app-types.js";
import { principalOf } from "../auth.js";
import { DATA_SECURITY, Nullable, PageQuery, Timestamp } from "../schemas.js";

const LastPurchase = Type.Object(
  {
    credits: Type.Number({ description: "Credits added, stored credits" }),
    at: Timestamp,
  },
  { description: "The latest purchase or grant" },
);

export const CreditBalance = Type.Object({
  userId: Type.String(),
  credits: Type.Number({ description: "Balance, stored credits (up to 3 decimals; 0.001 = 1 check)" }),
  displayCredits: Type.Integer({ description: "Balance, display credits (stored x 1000; 1 = 1 check)" }),
  updatedAt: Timestamp,
  usedThisMonth: Type.Number({ description: "Spent since the 1st of the month (UTC), stored credits" }),
  used_this_month: Type.Number({ description: "Same as usedThisMonth, stored credits" }),
  lastPurchase: Nullable(LastPurchase),
  last_purchase: Nullable(LastPurchase),
});

const Transaction = Type.Object({
  id: Type.String(),
  type: Type.String({ description: "signup, grant, purchase or debit" }),
  amount: Type.Number({ description: "Signed change in stored credits" }),
  displayAmount: Type.Integer({ description: "Signed change in display credits (amount x 1000)" }),
  balanceAfter: Type.Number({ description: "Balance after this entry, stored credits" }),
  reason: Type.String(),
  reference: Nullable(
    Type.String({ description: "What the entry is for: a job, batch or lead id; a purchase's payment id" }),
  ),
  createdAt: Timestamp,
});

/** The balance with the keys guide's snake_case aliases beside the camelCase fields. */
export function balanceBody(b: Awaited<ReturnType<CreditsService["balance"]>>) {
  return { ...b, used_this_month: b.usedThisMonth, last_purchase: b.lastPurchase };
}

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
          200: Type.Object({
            transactions: Type.Array(Transaction),
            total: Type.Integer(),
            limit: Type.Integer(),
            offset: Type.Integer(),
            hasMore: Type.Boolean(),
            nextOffset: Nullable(Type.Integer()),
          }),
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
      const hasMore = offset + entries.length < total;
      return {
        transactions: entries.map((e) => ({
          id: e.id,
          type: e.kind,
          amount: toStoredCredits(e.deltaMilli),
          displayAmount: e.deltaMilli,
          balanceAfter: toStoredCredits(e.balanceAfterMilli),
          reason: e.reason,
          reference: e.reference,
          createdAt: e.createdAt,
        })),
        total,
        limit,
        offset,
        hasMore,
        nextOffset: hasMore ? offset + entries.length : null,
      };
    },
  );
}
