// Wires the stalled-work sweeper and its recurring job: the net under the jobs' onExhausted
// hooks, closing work through the modules that own it (batches, lead validation, paid checks).
import type { BatchRunner } from "../batches/batch-runner.js";
import type { BatchesRepo } from "../batches/batches.repo.js";
import type { Config } from "../config/config.js";
import type { Module } from "../jobs/catalog.js";
import type { LeadValidationService } from "../leads/validation/lead-validation.service.js";
import type { Clock } from "../lib/clock.js";
import type { EmailChecksService } from "../paid-checks/email-checks.service.js";
import type { ValidationJobsRepo } from "../paid-checks/validation-jobs.repo.js";
import type { Database } from "../storage/db.js";
import { lifecycleJobs } from "./lifecycle.jobs.js";
import { StalledWorkSweeper, type SweptKind } from "./stalled-work.sweeper.js";

export interface LifecycleModuleDeps {
  config: Pick<Config, "jobs">;
  database: Database;
  clock: Clock;
  batchRunner: BatchRunner;
  batchesRepo: BatchesRepo;
  leadValidation: LeadValidationService;
  emailChecks: EmailChecksService;
  validationJobs: ValidationJobsRepo;
  /** Told of each closed row: the log line and the metric. */
  onClosed: (kind: SweptKind, id: string, reason: string) => void;
}

export function createLifecycle(deps: LifecycleModuleDeps): Module<{ sweeper: StalledWorkSweeper }> {
  const sweeper = new StalledWorkSweeper({ ...deps, settings: deps.config.jobs });
  return { services: { sweeper }, jobs: lifecycleJobs(sweeper, deps.config.jobs.sweepIntervalMs) };
}
