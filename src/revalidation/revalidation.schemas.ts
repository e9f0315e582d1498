// Wire shapes of the re-validation schedule (issue 26). The cap is in stored credits like every
// API amount (0.002 = one lead validation at the spec's price), with its display-credit twin.
import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "../lib/schema.js";

const RUN_STATUSES = ["started", "nothing_stale", "insufficient_credits", "limited", "network_down"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const RevalidationInput = Type.Object(
  {
    olderThanDays: Type.Integer({
      minimum: 1,
      maximum: 3650,
      description: "Leads whose last validation is older than this many days are validated again",
    }),
    everyHours: Type.Integer({ minimum: 1, maximum: 8760, description: "Hours between runs" }),
    maxCreditsPerRun: Type.Number({
      minimum: 0.001,
      maximum: 1_000_000,
      description:
        "Most stored credits one run may spend, to 0.001 (0.002 per lead at the default price); the oldest verdicts go first",
    }),
  },
  { additionalProperties: false },
);
export type RevalidationInput = Static<typeof RevalidationInput>;

export const RevalidationBody = Nullable(RevalidationInput, "The schedule, or null to turn it off");

const RevalidationSchedule = Type.Object({
  olderThanDays: Type.Integer(),
  everyHours: Type.Integer(),
  maxCreditsPerRun: Type.Number({ description: "Stored credits" }),
  maxDisplayCreditsPerRun: Type.Integer({ description: "The same cap in display credits" }),
  maxLeadsPerRun: Type.Integer({ description: "Leads one run may validate at today's price" }),
  nextRunAt: Timestamp,
  lastRun: Nullable(
    Type.Object({
      at: Timestamp,
      status: Type.Union(
        RUN_STATUSES.map((s) => Type.Literal(s)),
        {
          description:
            "started: a batch validates `leads`; nothing_stale: no lead was old enough; insufficient_credits: the balance could not pay for the run; limited: the account's batch limits refused it (retried soon); network_down: DNS was distrusted (retried soon)",
        },
      ),
      leads: Type.Integer(),
      batchId: Nullable(Type.String()),
    }),
  ),
  updatedAt: Timestamp,
});
export type RevalidationView = Static<typeof RevalidationSchedule>;

export const RevalidationResponse = Nullable(RevalidationSchedule, "The schedule, or null when off");
