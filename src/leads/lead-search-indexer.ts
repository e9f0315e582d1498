// Keeps SQLite's lead search index (FTS5, migrations 0010 and 0012) behind the writes: a lead is
// created without touching the index, and is indexed a moment later with the others created
// meanwhile, up to BATCH_ROWS per transaction. Until then search finds it by reading the few leads
// above the index's mark directly (leads.repo.ts), so results never lag; only their cost does.
// One FTS5 transaction per lead wrote a new index segment and merged segments each time: most of
// what a POST /v1/leads cost SQLite (ADR 0015).
// Runs are started by the `lead.created` hint (after the commit), at most once per DELAY_MS, and
// every SWEEP_MS for leads another process created (a CLI import). PostgreSQL needs none of this.
import { setImmediate as yieldToRequests } from "node:timers/promises";
import type { EventBus } from "../events/events.js";
import { PacedRun } from "../lib/concurrency.js";
import type { Database } from "../storage/db.js";
import { runInTransaction } from "../storage/transaction.js";
import type { LeadsRepo } from "./leads.repo.js";

/** How long the first lead of a burst waits for others to join its indexing transaction. */
const DELAY_MS = 200;
/** Most leads indexed in one transaction (the single connection is held meanwhile). */
const BATCH_ROWS = 500;
/** The catch-up sweep for leads created by other processes. */
const SWEEP_MS = 10_000;

export interface LeadSearchIndexerDeps {
  /** Its repository, built by the module's factory. */
  repo: LeadsRepo;
  database: Database;
  events: EventBus;
  onError: (error: unknown, context: string) => void;
}

export class LeadSearchIndexer {
  private readonly runs: PacedRun;
  private readonly unsubscribe: () => void;
  private readonly sweep: NodeJS.Timeout;
  private isClosed = false;

  constructor(private readonly deps: LeadSearchIndexerDeps) {
    this.runs = new PacedRun(() => this.catchUp(), {
      delayMs: DELAY_MS,
      onError: (error) => deps.onError(error, "lead search indexing failed; the next run retries"),
    });
    this.unsubscribe = deps.events.subscribe((event) => {
      if (event.type === "lead.created") this.runs.request();
    });
    this.sweep = setInterval(() => this.runs.request(), SWEEP_MS);
    this.sweep.unref();
  }

  /** Indexes every lead not yet indexed, BATCH_ROWS per transaction; returns how many. */
  async catchUp(): Promise<number> {
    let total = 0;
    for (;;) {
      const indexed = await runInTransaction(this.deps.database.db, (trx) =>
        this.deps.repo.indexSearchTail(trx, BATCH_ROWS),
      );
      total += indexed;
      if (indexed < BATCH_ROWS || this.isClosed) return total;
      // Requests waiting for the connection go first.
      await yieldToRequests();
    }
  }

  /** Stops scheduling runs and waits for the one under way. Leads left unindexed stay searchable,
   *  and the next process's first run indexes them. */
  async close(): Promise<void> {
    this.isClosed = true;
    this.unsubscribe();
    clearInterval(this.sweep);
    await this.runs.close();
  }
}
