// Wire shapes of the batch module: the batch view of the API, the short website result stored
// per domain item, and the name and payload of its job.
import { type Static, Type } from "@sinclair/typebox";
import type { WebsiteCheckResult } from "../checks/website/website.types.js";
import type { BatchesTable } from "../storage/schema.js";

export const BATCH_RUN_JOB = "batch.run";
export const MAX_DOMAIN_BATCH = 10_000;

/** `after`: the job that handed over to this one (de-duplicates the hand-over). */
export const BatchRunJobData = Type.Object({ batchId: Type.String(), after: Type.Optional(Type.String()) });
export type BatchRunJobData = Static<typeof BatchRunJobData>;

export interface BatchView {
  batchId: string;
  type: string;
  status: string;
  createdAt: string;
  pollUrl: string;
  totalLeads: number;
  completedLeads: number;
  validLeads: number;
  invalidLeads: number;
  failedLeads: number;
  progress: number;
  completedAt: string | null;
}

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
