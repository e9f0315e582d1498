// Scheduled re-validation (issue 26): an account's leads whose last validation is older than N
// days are validated again every M hours, oldest verdicts first, at most the credit cap per run.
// A run is a normal lead-validation batch (charged upfront, evented) named
// `revalidation:<dueAt>`: the run claims its schedule first, and a run retried after a crash
// finds that batch instead of starting (and charging) a second one. Leads never validated are
// not touched: nobody asked for their validation, and a schedule only renews verdicts.
import type { AuditActor, AuditTrail } from "../audit/audit.service.js";
import type { Clock } from "../lib/clock.js";
import { AppError, validationError } from "../lib/errors.js";
import { LimitRefused } from "../lib/limits.js";
import type { Database } from "../storage/db.js";
import type { RevalidationSchedulesTable } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import type { RevalidationRepo } from "./revalidation.repo.js";
import type { RevalidationInput, RevalidationView, RunStatus } from "./revalidation.schemas.js";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** A run's claim older than this belongs to a dead worker and is taken over. */
const CLAIM_LEASE_MS = 10 * 60_000;
/** A refused run (batch limits, DNS down) is tried again this soon, not a whole interval later. */
const RETRY_SOON_MS = 15 * 60_000;
const DUE_PAGE = 100;

export interface RevalidationDeps {
  database: Database;
  repo: RevalidationRepo;
  clock: Clock;
  leads: {
    staleLeadIds(accountId: string, before: Date, limit: number): Promise<string[]>;
    validate(
      accountId: string,
      leadIds: string[],
      webhookUrl: string | null,
      source: string,
    ): Promise<{ batchId: string }>;
  };
  batches: {
    findBySource(accountId: string, source: string): Promise<{ batchId: string; totalLeads: number } | null>;
  };
  /** Milli-credits one lead validation costs (PRICE_LEAD_VALIDATION_MILLI). */
  priceMilli: number;
  /** Most leads one run validates, whatever the cap (one batch). */
  maxLeadsPerRun: number;
  audit?: AuditTrail;
  /** True while DNS is distrusted: a run then waits rather than buying unknown verdicts. */
  isNetworkDown?: () => boolean;
}

export interface RunResult {
  accountId: string;
  status: RunStatus;
  leads: number;
  batchId: string | null;
}

export class RevalidationService {
  constructor(private readonly deps: RevalidationDeps) {}

  async get(accountId: string): Promise<RevalidationView | null> {
    const row = await this.deps.repo.find(this.deps.database.db, accountId);
    return row ? this.view(row) : null;
  }

  /** Sets the schedule (null turns it off). A new schedule's first run is due now; a changed one
   *  keeps its rhythm from the last run. */
  async set(
    accountId: string,
    input: RevalidationInput | null,
    actor: AuditActor,
  ): Promise<RevalidationView | null> {
    const now = this.deps.clock.now();
    return runInTransaction(this.deps.database.db, async (trx) => {
      const before = await this.deps.repo.find(trx, accountId);
      let saved: RevalidationSchedulesTable | null = null;
      if (input === null) {
        await this.deps.repo.remove(trx, accountId);
      } else {
        const capMilli = Math.round(input.maxCreditsPerRun * 1000);
        if (capMilli < 1)
          throw validationError(
            [{ field: "maxCreditsPerRun", message: "must be at least 0.001", type: "minimum" }],
            "maxCreditsPerRun must be at least 0.001",
          );
        const lastRun = before?.last_run_at ? Date.parse(before.last_run_at) : null;
        const next =
          lastRun === null ? now : new Date(Math.max(now.getTime(), lastRun + input.everyHours * HOUR_MS));
        saved = {
          account_id: accountId,
          older_than_days: input.olderThanDays,
          every_hours: input.everyHours,
          max_milli_credits_per_run: capMilli,
          next_run_at: before && lastRun === null ? before.next_run_at : next.toISOString(),
          claimed_at: before?.claimed_at ?? null,
          last_run_at: before?.last_run_at ?? null,
          last_run_status: before?.last_run_status ?? null,
          last_run_leads: before?.last_run_leads ?? null,
          last_run_batch_id: before?.last_run_batch_id ?? null,
          created_at: before?.created_at ?? now.toISOString(),
          updated_at: now.toISOString(),
        };
        await this.deps.repo.save(trx, saved);
      }
      await this.deps.audit?.record(trx, accountId, {
        actor,
        action: "revalidation.changed",
        target: { kind: "account", id: accountId },
        details: {
          before: before ? this.settingsOf(before) : null,
          after: saved ? this.settingsOf(saved) : null,
        },
      });
      return saved ? this.view(saved) : null;
    });
  }

  /** Runs every schedule due now (the recurring job); returns what each run did. */
  async runDue(): Promise<RunResult[]> {
    const results: RunResult[] = [];
    const seen = new Set<string>();
    for (;;) {
      const now = this.deps.clock.now();
      const stale = new Date(now.getTime() - CLAIM_LEASE_MS).toISOString();
      const due = (
        await this.deps.repo.due(this.deps.database.db, now.toISOString(), stale, DUE_PAGE)
      ).filter((row) => !seen.has(row.account_id));
      if (due.length === 0) return results;
      for (const row of due) {
        seen.add(row.account_id);
        const result = await this.runOne(row);
        if (result) results.push(result);
      }
    }
  }

  /** One account's due run: claimed, then the oldest verdicts up to the cap as one batch. */
  private async runOne(row: RevalidationSchedulesTable): Promise<RunResult | null> {
    const { repo, database, clock } = this.deps;
    const { db } = database;
    const accountId = row.account_id;
    const now = clock.now();
    const stale = new Date(now.getTime() - CLAIM_LEASE_MS).toISOString();
    if (!(await repo.claim(db, accountId, row.next_run_at, now.toISOString(), stale))) return null;
    const source = `revalidation:${row.next_run_at}`;
    let status: RunStatus;
    let leads = 0;
    let batchId: string | null = null;
    const earlier = await this.deps.batches.findBySource(accountId, source);
    if (earlier) {
      status = "started";
      batchId = earlier.batchId;
      leads = earlier.totalLeads;
    } else if (this.deps.isNetworkDown?.()) {
      status = "network_down";
    } else {
      const limit = Math.min(
        this.deps.maxLeadsPerRun,
        Math.floor(Number(row.max_milli_credits_per_run) / this.deps.priceMilli),
      );
      const cutoff = new Date(now.getTime() - Number(row.older_than_days) * DAY_MS);
      const ids = limit > 0 ? await this.deps.leads.staleLeadIds(accountId, cutoff, limit) : [];
      if (ids.length === 0) {
        status = "nothing_stale";
      } else {
        try {
          batchId = (await this.deps.leads.validate(accountId, ids, null, source)).batchId;
          status = "started";
          leads = ids.length;
        } catch (error) {
          status = refusalStatus(error);
        }
      }
    }
    const soon = status === "limited" || status === "network_down";
    const next = new Date(now.getTime() + (soon ? RETRY_SOON_MS : Number(row.every_hours) * HOUR_MS));
    await repo.finish(db, accountId, row.next_run_at, {
      next_run_at: next.toISOString(),
      last_run_at: now.toISOString(),
      last_run_status: status,
      last_run_leads: leads,
      last_run_batch_id: batchId,
    });
    return { accountId, status, leads, batchId };
  }

  private settingsOf(row: RevalidationSchedulesTable) {
    return {
      olderThanDays: Number(row.older_than_days),
      everyHours: Number(row.every_hours),
      maxCreditsPerRun: Number(row.max_milli_credits_per_run) / 1000,
    };
  }

  private view(row: RevalidationSchedulesTable): RevalidationView {
    const capMilli = Number(row.max_milli_credits_per_run);
    return {
      ...this.settingsOf(row),
      maxDisplayCreditsPerRun: capMilli,
      maxLeadsPerRun: Math.min(this.deps.maxLeadsPerRun, Math.floor(capMilli / this.deps.priceMilli)),
      nextRunAt: row.next_run_at,
      lastRun: row.last_run_at
        ? {
            at: row.last_run_at,
            status: (row.last_run_status ?? "nothing_stale") as RunStatus,
            leads: Number(row.last_run_leads ?? 0),
            batchId: row.last_run_batch_id,
          }
        : null,
      updatedAt: row.updated_at,
    };
  }
}

/** What a refused validation means for the run; anything else is a failure the job retries. */
function refusalStatus(error: unknown): RunStatus {
  if (error instanceof LimitRefused)
    return error.refusal.kind === "insufficient_credits" ? "insufficient_credits" : "limited";
  // A lead archived between the selection and the charge: the whole run is refused, try again soon.
  if (error instanceof AppError && error.code === "NOT_FOUND") return "limited";
  throw error;
}
