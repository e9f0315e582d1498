// The export build job: one attempt per export, retried on storage failures.
import { type Static, Type } from "@sinclair/typebox";
import { defineJob, type JobDefinition } from "../jobs/catalog.js";
import { ACCOUNT_EXPORT_JOB, type AccountExportService } from "./account-export.service.js";

const ExportJobData = Type.Object({ exportId: Type.String(), accountId: Type.String() });

export function accountExportJobDefinitions(exports: AccountExportService): JobDefinition[] {
  return [
    defineJob<Static<typeof ExportJobData>>({
      name: ACCOUNT_EXPORT_JOB,
      schema: ExportJobData,
      policy: { retryLimit: 2, retryDelayMs: 10_000, retryBackoff: true, expireInMs: 600_000 },
      concurrency: 1,
      handler: (job) => exports.build(job.data.exportId, job.data.accountId),
    }),
  ];
}
