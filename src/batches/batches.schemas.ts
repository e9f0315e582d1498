// Wire shapes of the batch module: the batch view of the API, the short website result stored
// per domain item, and the name and payload of its job.
import { type Static, Type } from "@sinclair/typebox";
import type { WebsiteCheckResult } from "../checks/website/website.types.js";
import { Nullable, Page, Timestamp } from "../lib/schema.js";
import type { BatchesTable } from "../storage/schema.js";

export const BATCH_RUN_JOB = "batch.run";
export const MAX_DOMAIN_BATCH = 10_000;

/** `after`: the job that handed over to this one (de-duplicates the hand-over). */
export const BatchRunJobData = Type.Object({ batchId: Type.String(), after: Type.Optional(Type.String()) });
export type BatchRunJobData = Static<typeof BatchRunJobData>;

export const BatchParams = Type.Object({ batchId: Type.String({ minLength: 1, maxLength: 100 }) });

export const BatchView = Type.Object({
  batchId: Type.String(),
  type: Type.String({ description: "lead_validation or domain_check" }),
  status: Type.String({ description: "processing, completed or failed" }),
  createdAt: Timestamp,
  pollUrl: Type.String(),
  totalLeads: Type.Integer(),
  completedLeads: Type.Integer(),
  validLeads: Type.Integer(),
  invalidLeads: Type.Integer(),
  failedLeads: Type.Integer(),
  progress: Type.Number({ description: "0-100 percent" }),
  completedAt: Nullable(Timestamp),
});
export type BatchView = Static<typeof BatchView>;

/** One item of a batch, in input order (GET /v1/batches/{batchId}/results). */
export const BatchResult = Type.Object({
  index: Type.Integer(),
  input: Type.String(),
  leadId: Nullable(Type.String()),
  status: Type.String(),
  verdict: Nullable(Type.String()),
  result: Nullable(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "The item's check result. For a website: sslValid is null when no server was reached at all and false when the site answers without working HTTPS; isParked is null when no HTTP response arrived (no page judged).",
      },
    ),
  ),
  error: Nullable(Type.String()),
});
export type BatchResult = Static<typeof BatchResult>;

export const BatchResultsPage = Page("results", BatchResult, {
  batchId: Type.String(),
  status: Type.String(),
});

export function toBatchView(batch: BatchesTable): BatchView {
  const completed = Number(batch.completed);
  const total = Number(batch.total);
  return {
    batchId: batch.id,
    type: batch.kind,
    status: batch.status,
    createdAt: batch.created_at,
    pollUrl: `/v1/batches/${batch.id}`,
    totalLeads: total,
    completedLeads: completed,
    validLeads: Number(batch.valid),
    invalidLeads: Number(batch.invalid),
    failedLeads: Number(batch.failed),
    progress: total > 0 ? Math.round((completed / total) * 1000) / 10 : 100,
    completedAt: batch.completed_at,
  };
}

export function shortWebsiteResult(result: WebsiteCheckResult) {
  const { details: _details, ...short } = result;
  return short;
}
