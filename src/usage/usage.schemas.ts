// Wire shapes of the usage report: days and the counts per day.
import { Type } from "@sinclair/typebox";
export const Day = Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "UTC day, YYYY-MM-DD" });

export const UsageCounts = {
  creditsSpent: Type.Integer({
    minimum: 0,
    description:
      "Credits charged, in display credits (1 per check at the default prices; stored credits x 1000)",
  }),
  creditsAdded: Type.Integer({
    minimum: 0,
    description: "Credits granted or bought (the signup grant included), in display credits",
  }),
  charges: Type.Integer({
    minimum: 0,
    description: "Charged requests (ledger debits; a bulk request is one)",
  }),
  validations: Type.Integer({
    minimum: 0,
    description: "Lead validations and batch items counted toward the daily validation limit",
  }),
};
