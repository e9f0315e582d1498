// The safety net behind the jobs' onExhausted hooks: now and then, work still `processing` long
// past any deadline its job could have (a job lost in a way no hook saw: a queue wiped, a bug) is
// closed the same way a hook would close it. Every close is logged and counted in /metrics
// (leadcheck_sweeper_closed_total); in a healthy system the count stays at zero.
import type { BatchRunner } from "../batches/batch-runner.js";
import type { BatchesRepo } from "../batches/batches.repo.js";
import type { LeadValidationService } from "../leads/validation/lead-validation.service.js";
import type { Clock } from "../lib/clock.js";
import type { EmailChecksService } from "../paid-checks/email-checks.service.js";
import type { ValidationJobsRepo } from "../paid-checks/validation-jobs.repo.js";
import type { Database } from "../storage/db.js";

/** Rows closed per kind and sweep; the next sweep takes the rest. */
const SWEEP_BATCH = 200;

export type SweptKind = "batch" | "lead" | "validation_job";

export interface StalledWorkSweeperDeps {
  database: Database;
  clock: Clock;
  /** Reads of stalled rows: the batches' and validation jobs' repositories. */
  batchesRepo: BatchesRepo;
  validationJobs: ValidationJobsRepo;
  batchRunner: BatchRunner;
  leadValidation: LeadValidationService;
  emailChecks: EmailChecksService;
  settings: {
    sweepIntervalMs: number;
    batchStallMs: number;
    leadStallMs: number;
    validationJobGraceMs: number;
  };
  /** Told of each closed row: the log line and the metric. */
  onClosed: (kind: SweptKind, id: string, reason: string) => void;
}

export class StalledWorkSweeper {
  constructor(private readonly deps: StalledWorkSweeperDeps) {}

  /** One pass; returns how many rows of each kind it closed (not those another process closed
   *  meanwhile). */
  async sweep(): Promise<Record<SweptKind, number>> {
    const { db } = this.deps.database;
    const { settings, clock } = this.deps;
    const now = clock.now().getTime();
    const closed: Record<SweptKind, number> = { batch: 0, lead: 0, validation_job: 0 };
    const batchCutoff = new Date(now - settings.batchStallMs).toISOString();
    for (const batchId of await this.deps.batchesRepo.stalledIds(db, batchCutoff, SWEEP_BATCH)) {
      const reason = `no progress for ${Math.round(settings.batchStallMs / 1000)} s: the batch's job was lost`;
      if (await this.deps.batchRunner.failRemaining(batchId, reason)) {
        this.deps.onClosed("batch", batchId, reason);
        closed.batch++;
      }
    }
    const leadCutoff = new Date(now - settings.leadStallMs).toISOString();
    for (const lead of await this.deps.leadValidation.stalledLeads(leadCutoff, SWEEP_BATCH)) {
      const reason = `still processing after ${Math.round(settings.leadStallMs / 1000)} s: its validation job was lost`;
      if (await this.deps.leadValidation.failOne(lead.account_id, lead.id, reason)) {
        this.deps.onClosed("lead", lead.id, reason);
        closed.lead++;
      }
    }
    const jobCutoff = new Date(now - settings.validationJobGraceMs).toISOString();
    for (const jobId of await this.deps.validationJobs.overdueIds(db, jobCutoff, SWEEP_BATCH)) {
      const reason = "maximum validation time of 5 minutes exceeded (its job was lost)";
      if (await this.deps.emailChecks.failJob(jobId, reason)) {
        this.deps.onClosed("validation_job", jobId, reason);
        closed.validation_job++;
      }
    }
    return closed;
  }
}
