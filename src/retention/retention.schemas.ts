// Wire shapes of the retention settings.
import { Type } from "@sinclair/typebox";

const Days = (description: string) =>
  Type.Integer({ minimum: 0, maximum: 36_500, description: `${description}; 0 keeps them forever` });

export const RetentionSettings = Type.Object({
  archived_leads_days: Days("Days an archived lead is kept after archiving"),
  batch_item_details_days: Days("Days a finished batch item keeps its input and result"),
  webhook_delivery_bodies_days: Days("Days a webhook delivery keeps its request and response bodies"),
  audit_entries_days: Days("Days audit entries are kept"),
  suppress_erased_emails: Type.Boolean({
    description: "Refuse an erased address when it is created or imported again",
  }),
});

export const RetentionUpdate = Type.Partial(RetentionSettings, {
  minProperties: 1,
  additionalProperties: false,
});
