import { Type } from "@sinclair/typebox";
import { toStoredCredits } from "../../credits/credits.service.js";
import type { App, AppDeps } from "../app-types.js";
import { principalOf } from "../auth.js";
import { DATA_SECURITY, Nullable, PageQuery, Timestamp } from "../schemas.js";

export const CreditBalance = Type.Object({
  userId: Type.String(),
  credits: Type.Number({ description: "Stored credits (3 decimals)" }),
  displayCredits: Type.Integer({ description: "Stored credits x 1000" }),
  updatedAt: Timestamp,
  usedThisMonth: Type.Number(),
  used_this_month: Type.Number(),
  lastPurchase: Nullable(Type.Object({ credits: Type.Number(), at: Timestamp })),
  last_purchase: Nullable(Type.Object({ credits: Type.Number(), at: Timestamp })),
});

const Transaction = Type.Object({
  id: Type.String(),
  type: Type.String({ description: "signup, grant or debit" }),
  amount: Type.Number({ description: "Signed change in stored credits" }),
  displayAmount: Type.Integer(),
  balanceAfter: Type.Number(),
  reason: Type.String(),
  reference: Nullable(Type.String()),
  createdAt: Timestamp,
});

/** The balance with the keys guide's snake_case aliases beside the camelCase fields. */
export function balanceBody(b: Awaited<ReturnType<AppDeps["credits"]["balance"]>>) {
  return { ...b, used_this_month: b.usedThisMonth, last_purchase: b.lastPurchase };
}

export async function creditsRoutes(app: App, deps: AppDeps): Promise<void> {
  const common = { tags: ["credits"], security: DATA_SECURITY };
  const config = { auth: "data" as const };

  app.get(
    "/v1/credits",
    {
      config,
      schema: {
        ...common,
        operationId: "getCredits",
        summary: "Credit balance",
        response: { 200: CreditBalance },
      },
    },
    async (request) => balanceBody(await deps.credits.balance(principalOf(request).accountId)),
  );

  app.get(
    "/v1/credits/transactions",
    {
      config,
      schema: {
        ...common,
        operationId: "listCreditTransactions",
        summary: "Credit ledger, newest first",
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
