// Wire shapes of erasure.
import { Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "../lib/schema.js";

const Count = Type.Integer({ minimum: 0 });

export const ErasureResult = Type.Object({
  lead_id: Type.String(),
  erased_at: Timestamp,
  already_erased: Type.Boolean({
    description: "True when an earlier request erased it; nothing more was removed",
  }),
  removed: Nullable(
    Type.Object({
      leads: Count,
      batch_items: Type.Integer({
        minimum: 0,
        description: "Items kept for the batch's counts, input and result erased",
      }),
      events: Count,
      webhook_deliveries: Count,
      validation_jobs: Count,
      job_payloads: Count,
      account_exports: Count,
    }),
    "What this request removed; null when already erased",
  ),
});

export const LeadParams = Type.Object({ lead_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const ErasePersonBody = Type.Object(
  {
    email: Type.String({
      pattern: "^[^@\\s]+@[^@\\s]+$",
      maxLength: 254,
      description:
        "The person's address; aliases fold as in duplicate detection (j.doe+crm@gmail.com = jdoe@gmail.com)",
    }),
  },
  { additionalProperties: false },
);

export const ErasePersonResult = Type.Object({
  email: Type.String(),
  leads: Type.Array(ErasureResult, { description: "One result per lead held under this address" }),
});
