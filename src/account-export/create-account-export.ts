// Wires the account export module: service, repository and the build job.
import type { AuditTrail } from "../audit/audit.service.js";
import type { Module } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { accountExportJobDefinitions } from "./account-export.jobs.js";
import { AccountExportRepo } from "./account-export.repo.js";
import { AccountExportService } from "./account-export.service.js";

export function createAccountExport(deps: {
  database: Database;
  clock: Clock;
  queue: JobQueue;
  audit: AuditTrail;
}): Module<{ accountExport: AccountExportService }> {
  const accountExport = new AccountExportService({ ...deps, repo: new AccountExportRepo() });
  return { services: { accountExport }, jobs: accountExportJobDefinitions(accountExport) };
}
