// Wire shapes of the credit endpoints: the balance and the ledger entries, in stored credits
// (3 decimals) beside display credits (x 1000), decisions §7.
import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "../lib/schema.js";
import type { LedgerEntry } from "./credits.repo.js";
import { type CreditBalance as Balance, toStoredCredits } from "./credits.service.js";

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

export const Transaction = Type.Object({
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
export function balanceBody(b: Balance) {
  return { ...b, used_this_month: b.usedThisMonth, last_purchase: b.lastPurchase };
}

export type TransactionView = Static<typeof Transaction>;

export function toTransactionView(entry: LedgerEntry): TransactionView {
  return {
    id: entry.id,
    type: entry.kind,
    amount: toStoredCredits(entry.deltaMilli),
    displayAmount: entry.deltaMilli,
    balanceAfter: toStoredCredits(entry.balanceAfterMilli),
    reason: entry.reason,
    reference: entry.reference,
    createdAt: entry.createdAt,
  };
}
