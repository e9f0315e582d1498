// Wire shapes of the widget endpoints: the visitor-facing verdict with its token, and the
// confirmation the form's backend reads.
import { Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "../lib/schema.js";
export const KeyQuery = Type.Object({
  key: Type.Optional(Type.String({ maxLength: 100, description: "The publishable key (pk_...)" })),
});

const VerdictFields = {
  status: Type.String({ description: "valid, invalid, risky or unknown (never blocks: fail open)" }),
  reason: Type.String({
    description:
      "The email check's reason, or: typo (a known look-alike domain), deadline (not settled in time; the probe goes on), unavailable (not checked: fail open), not_scripted (test mode).",
  }),
  didYouMean: Nullable(Type.String()),
  disposable: Nullable(Type.Boolean()),
  role: Nullable(Type.Boolean()),
  free: Nullable(Type.Boolean()),
};

export const WidgetAnswer = Type.Object(
  {
    ...VerdictFields,
    token: Type.String({
      description:
        "Signed, 15 minutes, bound to the address and key: the form's backend confirms it with POST /v1/widget/confirm",
    }),
  },
  { additionalProperties: false },
);

export const Confirmation = Type.Object(
  {
    email: Type.String(),
    keyId: Type.String(),
    checkedAt: Timestamp,
    fresh: Type.Boolean({ description: "true: the visitor saw unknown and this verdict was looked up now" }),
    ...VerdictFields,
  },
  { additionalProperties: false },
);
