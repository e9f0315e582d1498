// POST /v1/check-email and GET /v1/validation-jobs (spec "Validation job"): charge upfront, start a
// durable job in the same transaction, wait up to the caller's timeout for it, else hand back a
// job to poll. Greylisting and other temporary answers are retried by re-queued jobs inside the
// 5-minute limit; past it the job is `timeout`. Jobs are gone (404) 24 hours after creation.
import { type Static, Type } from "@sinclair/typebox";
import type { EmailVerdict, EmailVerificationProvider } from "../checks/email/email.types.js";
import { nextRetryDelayMs } from "../checks/email/retry-schedule.js";
import { parseEmail } from "../checks/email/syntax.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { EventBus } from "../events/events.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { Clock } from "../lib/clock.js";
import { untilAborted } from "../lib/concurrency.js";
import { fail, invalid, notFound } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import type { ValidationJobsTable } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import type { ValidationJobsRepo } from "./validation-jobs.repo.js";

export const EMAIL_VERIFY_JOB = "email.verify";
export const VALIDATION_JOBS_PURGE_JOB = "validation-jobs.purge";
export const MAX_VALIDATION_MS = 5 * 60_000;
const JOB_RETENTION_MS = 24 * 3600_000;

export interface EmailChecksDeps {
  database: Database;
  /** The only SQL for validation jobs. */
  jobs: ValidationJobsRepo;
  credits: CreditsService;
  clock: Clock;
  queue: JobQueue;
  email: EmailVerificationProvider;
  priceMilli: number;
  /** Sends the unsigned ad-hoc callback once (webhookUrl); errors are the sender's to swallow. */
  sendCallback?: (url: string, payload: Record<string, unknown>) => Promise<void>;
  /** How often a waiting request looks at its job. */
  pollIntervalMs?: number;
  /** Upper bound on the wait before retrying a temporary answer (tests shorten it). */
  retryDelayCapMs?: number;
  /** `validation.failed` is emitted when a job ends failed or timed out. */
  events: EventBus;
  /** Where errors that no caller sees go (a failed ad-hoc callback): the process's logger. */
  onError?: (error: unknown, context: string) => void;
}

export const EmailVerifyJobData = Type.Object({ jobId: Type.String() });
export type EmailVerifyJobData = Static<typeof EmailVerifyJobData>;

export type EmailCheckOutcome =
  | { kind: "completed"; job: ValidationJobsTable; verdict: EmailVerdict; balanceMilli: number }
  | { kind: "processing"; job: ValidationJobsTable; balanceMilli: number }
  | { kind: "finished_without_result"; job: ValidationJobsTable; balanceMilli: number };

/** The spec's snake_case `result` of a validation job. */
function jobResultOf(v: EmailVerdict) {
  return {
    email: v.email,
    status: v.status,
    valid: v.valid,
    catch_all: v.catchAll,
    disposable: v.disposable,
    service: v.service,
    domain: v.domain,
    email_type: v.emailType,
    email_risk: v.emailRisk,
    email_score: v.emailScore,
    reason: v.reason,
  };
}

function elapsedTime(fromIso: string, toIso: string): string {
  const s = Math.max(0, (Date.parse(toIso) - Date.parse(fromIso)) / 1000);
  if (s < 60) return `${s.toFixed(1)}s`;
  return `${Math.floor(s / 60)}m ${Math.round(s % 60)}s`;
}

export class EmailChecksService {
  constructor(private readonly deps: EmailChecksDeps) {}

  /** Charges, starts the job and waits up to `timeoutSeconds` for it. */
  async check(
    accountId: string,
    email: string,
    timeoutSeconds: number,
    webhookUrl: string | null,
  ): Promise<EmailCheckOutcome> {
    const parsed = parseEmail(email);
    if (!parsed.ok) {
      throw invalid([{ field: "email", message: `invalid email: ${parsed.message}`, type: "format" }]);
    }
    const now = this.deps.clock.now();
    const job: ValidationJobsTable = {
      id: newId("job", now.getTime()),
      account_id: accountId,
      type: "email",
      input: parsed.email,
      status: "processing",
      result: null,
      error: null,
      webhook_url: webhookUrl,
      attempts: 0,
      created_at: now.toISOString(),
      completed_at: null,
      deadline_at: new Date(now.getTime() + MAX_VALIDATION_MS).toISOString(),
      expires_at: new Date(now.getTime() + JOB_RETENTION_MS).toISOString(),
    };
    const { outcome } = await this.deps.credits.debit(
      { accountId, amountMilli: this.deps.priceMilli, reason: "Email check", reference: job.id },
      async (trx) => {
        await this.deps.jobs.insert(trx, job);
        await this.deps.queue.send(EMAIL_VERIFY_JOB, { jobId: job.id }, { trx });
      },
    );
    // Nothing was charged nor started.
    if (outcome.kind === "insufficient_credits") throw fail(outcome);
    const finished = await this.waitFor(job.id, timeoutSeconds * 1000);
    const balanceMilli = outcome.balanceMilli;
    if (!finished || finished.status === "processing")
      return { kind: "processing", job: finished ?? job, balanceMilli };
    if (finished.status === "completed" && finished.result) {
      const verdict = (JSON.parse(finished.result) as { verdict: EmailVerdict }).verdict;
      return { kind: "completed", job: finished, verdict, balanceMilli };
    }
    return { kind: "finished_without_result", job: finished, balanceMilli };
  }

  private async waitFor(jobId: string, timeoutMs: number): Promise<ValidationJobsTable | undefined> {
    const deadline = Date.now() + timeoutMs;
    const interval = this.deps.pollIntervalMs ?? 100;
    for (;;) {
      const row = await this.find(jobId);
      if (row?.status !== "processing" || Date.now() >= deadline) return row;
      await new Promise((r) => setTimeout(r, Math.min(interval, Math.max(1, deadline - Date.now()))));
    }
  }

  private find(jobId: string) {
    return this.deps.jobs.findById(this.deps.database.db, jobId);
  }

  async getJob(accountId: string, jobId: string) {
    const row = await this.find(jobId);
    const now = this.deps.clock.now().toISOString();
    if (!row || row.account_id !== accountId || row.expires_at <= now) throw notFound("Validation job");
    const stored = row.result ? (JSON.parse(row.result) as { result: Record<string, unknown> }) : undefined;
    return {
      jobId: row.id,
      type: row.type,
      input: row.input,
      status: row.status,
      ...(stored ? { result: stored.result } : {}),
      ...(row.error ? { error: row.error } : {}),
      createdAt: row.created_at,
      completedAt: row.completed_at,
      elapsedTime: elapsedTime(row.created_at, row.completed_at ?? now),
    };
  }

  /** One attempt of an email job. A throw is retried; the job's onExhausted (failJob) closes it
   *  once no attempt is left. `signal` (the job's): its time ran out, the answer is not waited for. */
  async runAttempt(jobId: string, signal?: AbortSignal): Promise<void> {
    const row = await this.find(jobId);
    if (row?.status !== "processing") return;
    const now = this.deps.clock.now();
    if (now.toISOString() >= row.deadline_at) {
      await this.finish(row, "timeout", null, "maximum validation time of 5 minutes exceeded");
      return;
    }
    // A background job: the SMTP conversation may wait RFC 5321's minutes, but never past the
    // job's 5-minute deadline (a second is kept to store the answer), nor past its abort signal.
    const budgetMs = Math.max(1, Date.parse(row.deadline_at) - now.getTime() - 1000);
    const verdict = await untilAborted(
      this.deps.email.verify(row.input, { background: { budgetMs }, accountId: row.account_id }),
      signal,
    );
    const elapsedMs = now.getTime() - Date.parse(row.created_at);
    const planned =
      verdict.retryAfterMs === undefined
        ? undefined
        : nextRetryDelayMs({ retryAfterMs: verdict.retryAfterMs, retry: Number(row.attempts), elapsedMs });
    const delayMs =
      planned === undefined ? undefined : Math.min(planned, this.deps.retryDelayCapMs ?? planned);
    if (delayMs !== undefined && now.getTime() + delayMs < Date.parse(row.deadline_at)) {
      // Greylisted or temporarily refused: try again later, inside the job's 5 minutes.
      const attempts = Number(row.attempts) + 1;
      await runInTransaction(this.deps.database.db, async (trx) => {
        await this.deps.jobs.setAttempts(trx, row.id, attempts);
        await this.deps.queue.send(
          EMAIL_VERIFY_JOB,
          { jobId: row.id },
          { trx, startAfterMs: delayMs, singletonKey: `${row.id}:${attempts}` },
        );
      });
      return;
    }
    await this.finish(row, "completed", verdict, null);
  }

  /** The job will never run again (retries spent, expiry, lost worker): it ends `timeout` past
   *  its 5 minutes, `failed` with the error otherwise. False when it had already ended. */
  async failJob(jobId: string, error: string): Promise<boolean> {
    const row = await this.find(jobId);
    if (row?.status !== "processing") return false;
    const isLate = this.deps.clock.now().toISOString() >= row.deadline_at;
    return this.finish(row, isLate ? "timeout" : "failed", null, error);
  }

  /** Ends the job unless another attempt ended it first; true when this call ended it. */
  private async finish(
    row: ValidationJobsTable,
    status: ValidationJobsTable["status"],
    verdict: EmailVerdict | null,
    error: string | null,
  ): Promise<boolean> {
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const changed = await runInTransaction(this.deps.database.db, async (trx) => {
      const isEnded = await this.deps.jobs.finishIfProcessing(trx, row.id, {
        status,
        result: verdict ? JSON.stringify({ result: jobResultOf(verdict), verdict }) : null,
        error,
        completed_at: at,
      });
      if (!isEnded) return false;
      if (status === "failed" || status === "timeout") {
        const data = { jobId: row.id, email: row.input, status, error };
        await this.deps.events.emit(trx, "validation.failed", row.account_id, data, now);
      }
      return true;
    });
    if (!changed || !row.webhook_url || !this.deps.sendCallback) return changed;
    // Ad-hoc callback: unsigned, once, no retries (spec).
    await this.deps
      .sendCallback(row.webhook_url, {
        event: "validation.complete",
        jobId: row.id,
        email: row.input,
        status,
        result: verdict
          ? { valid: verdict.valid, catch_all: verdict.catchAll, service: verdict.service }
          : null,
        timestamp: at,
      })
      .catch((err: unknown) =>
        this.deps.onError?.(err, `ad-hoc callback of validation job ${row.id} not sent`),
      );
    return true;
  }

  async purgeExpired(): Promise<number> {
    return this.deps.jobs.deleteExpired(this.deps.database.db, this.deps.clock.now().toISOString());
  }
}
