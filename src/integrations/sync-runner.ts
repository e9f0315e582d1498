// Runs a sync's phases: import (rows or contacts become leads, a page at a time, the cursor stored
// after each), validate (the created leads as one normal batch, charged and evented like any),
// wait (for that batch), write (verdicts back to the source, only our columns or properties),
// then done with sync.completed. Each phase's progress is stored, so a killed worker's pass
// resumes where it stopped; a revoked credential sets the connection to needs_reauth and ends the
// sync failed with the reason, as do a deleted sheet or list.
import type { Transaction } from "kysely";
import type { BatchesService } from "../batches/batches.service.js";
import type { EventBus } from "../events/events.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { LeadsService } from "../leads/leads.service.js";
import type { Clock } from "../lib/clock.js";
import { failureOf } from "../lib/errors.js";
import type { Database } from "../storage/db.js";
import type { ConnectionsTable, Schema, SyncsTable } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import type { ConnectionsService, GatewayFactory, StoredCredentials } from "./connections.service.js";
import type { IntegrationsRepo } from "./integrations.repo.js";
import { type SyncCountsView, WATCH_JOB } from "./integrations.schemas.js";
import { RemoteError } from "./remote-error.js";
import { readHubSpotPage, readSheet, type SourcePage, sheetPage } from "./sync-sources.js";
import { type SyncState, writeHubSpot, writeSheet } from "./sync-write-back.js";
import { type SyncParams, ZERO_COUNTS } from "./syncs.service.js";

export interface SyncRunnerDeps {
  database: Database;
  repo: IntegrationsRepo;
  clock: Clock;
  events: EventBus;
  leads: LeadsService;
  batches: BatchesService;
  connections: ConnectionsService;
  gateways: GatewayFactory;
  queue: JobQueue;
  /** The length of a watch's minute (WATCH_MINUTE_MS). */
  watchMinuteMs: number;
  /** Sheet rows per values.batchUpdate (SYNC_SHEET_WRITE_ROWS). */
  sheetWriteRows: number;
}

const MAX_ERRORS = 200;

export class SyncRunner {
  constructor(private readonly deps: SyncRunnerDeps) {}

  /** Advances the sync as far as it can; "waiting" when its batch is still validating. `signal`
   *  (the job attempt's expiry) stops it between pages and chunks, so an attempt declared dead
   *  never writes beside the retry that replaces it. */
  async run(syncId: string, signal?: AbortSignal): Promise<"done" | "waiting"> {
    const sync = await this.deps.repo.findSync(this.deps.database.db, syncId);
    if (sync?.status !== "running") return "done";
    const params = JSON.parse(sync.params) as SyncParams;
    const found = await this.deps.connections.credentials(sync.account_id, sync.connection_id);
    if (!found) {
      await this.fail(sync, "the connection was deleted");
      return "done";
    }
    const state: SyncState = {
      sync,
      params,
      counts: { ...ZERO_COUNTS, ...(JSON.parse(sync.counts) as Partial<SyncCountsView>) },
      errors: JSON.parse(sync.errors) as SyncState["errors"],
      save: (changes) => this.save(state, changes),
      addError: (item, message) => {
        state.counts.failed++;
        if (state.errors.length < MAX_ERRORS) state.errors.push({ item, message });
      },
    };
    try {
      return await this.advance(state, found, signal);
    } catch (error) {
      if (error instanceof RemoteError && error.kind !== "unavailable") {
        if (error.kind === "auth")
          await this.deps.connections.setStatus(sync.connection_id, "needs_reauth", error.message);
        await this.fail(state.sync, error.message, state);
        return "done";
      }
      if (failureOf(error)?.kind === "insufficient_credits") {
        await this.fail(state.sync, "not enough credits to validate the synced leads", state);
        return "done";
      }
      throw error;
    }
  }

  private async advance(
    state: SyncState,
    connection: { row: ConnectionsTable; credentials: StoredCredentials },
    signal: AbortSignal | undefined,
  ): Promise<"done" | "waiting"> {
    const { sync, params } = state;
    const { credentials } = connection;
    const accountId = sync.account_id;
    const sheets = credentials.kind === "google_sheets" ? this.deps.gateways.sheets(credentials) : undefined;
    const hubspot =
      credentials.kind === "hubspot" ? this.deps.gateways.hubspot(credentials.accessToken) : undefined;
    if (sync.phase === "import") {
      let cursor = sync.cursor;
      // The sheet is read once per attempt and imported a page at a time from that copy; a
      // resumed attempt reads it again and starts at the stored cursor.
      const rows = sheets ? await readSheet(sheets, params.spreadsheetId!, params.sheet!) : undefined;
      // Contacts remember their portal, so a lead links back to its record.
      const portalId = hubspot ? await this.deps.connections.hubspotPortal(connection.row, hubspot) : null;
      for (;;) {
        signal?.throwIfAborted();
        const page: SourcePage = rows
          ? sheetPage(rows, params.spreadsheetId!, params.sheet!, params.mapping, cursor)
          : await readHubSpotPage(hubspot!, params.listId, cursor, sync.since_ms ?? null, portalId);
        await this.importPage(state, page);
        cursor = page.next;
        await state.save({ cursor });
        if (cursor === null) break;
      }
      await state.save({ phase: "validate", cursor: null });
    }
    if (sync.phase === "validate") {
      const items = await this.deps.repo.items(this.deps.database.db, sync.id);
      // The created leads, and matched ones never validated: a page imported by an attempt that
      // died before recording its items reads as matched on the retry, and is validated all
      // the same. A lead validated before is re-validated only on request (not here).
      // The batch names the sync as its source: an attempt that died after starting it finds it
      // here instead of starting (and charging) a second one.
      const source = `sync:${sync.id}`;
      const started = params.validate ? await this.deps.batches.findBySource(accountId, source) : null;
      const leads =
        params.validate && !started
          ? await this.deps.leads.getMany(accountId, [...new Set(items.map((i) => i.lead_id))])
          : [];
      const toValidate = leads.filter((l) => l.validationStatus === "new").map((l) => l.id);
      if (started) {
        await state.save({ phase: "wait", batch_id: started.batchId });
      } else if (toValidate.length > 0) {
        const batch = await this.deps.leads.validate(accountId, toValidate, null, source);
        await state.save({ phase: "wait", batch_id: batch.batchId });
      } else {
        await state.save({ phase: "write" });
      }
    }
    if (sync.phase === "wait") {
      const batch = await this.deps.batches.get(accountId, sync.batch_id!);
      if (batch.status === "processing") return "waiting";
      state.counts.validated = batch.completedLeads;
      await state.save({ phase: "write" });
    }
    if (sync.phase === "write") {
      if (params.writeBack) {
        const writeDeps = { ...this.deps, signal };
        if (sheets) await writeSheet(state, writeDeps, sheets);
        else await writeHubSpot(state, writeDeps, hubspot!);
      }
      await this.complete(state);
    }
    return "done";
  }

  private async importPage(state: SyncState, page: SourcePage): Promise<void> {
    const { sync } = state;
    state.counts.read += page.items.length;
    if (page.items.length === 0) return;
    const source = state.params.kind;
    const result = await this.deps.leads.importSynced(
      sync.account_id,
      page.items.map((i) => i.lead),
      source,
    );
    const base = state.counts.read - page.items.length;
    const rows = [];
    for (const [index, item] of page.items.entries()) {
      const outcome = result.items[index];
      if (!outcome || "error" in outcome || item.key === null) {
        state.counts.skipped++;
        if (state.errors.length < MAX_ERRORS)
          state.errors.push({
            item: item.label,
            message: outcome && "error" in outcome ? outcome.error : "no email",
          });
        continue;
      }
      if (outcome.outcome === "created") state.counts.created++;
      else state.counts.matched++;
      rows.push({
        sync_id: sync.id,
        item_key: item.key,
        seq: base + index,
        lead_id: outcome.leadId,
        outcome: outcome.outcome,
        written: 0,
      });
    }
    await this.deps.repo.insertItems(this.deps.database.db, rows);
  }

  private async save(state: SyncState, changes: Partial<SyncsTable>): Promise<void> {
    Object.assign(state.sync, changes);
    await this.deps.repo.updateSync(this.deps.database.db, state.sync.id, {
      ...changes,
      counts: JSON.stringify(state.counts),
      errors: JSON.stringify(state.errors),
      updated_at: this.deps.clock.now().toISOString(),
    });
  }

  private async complete(state: SyncState): Promise<void> {
    const now = this.deps.clock.now();
    const { sync } = state;
    await runInTransaction(this.deps.database.db, async (trx) => {
      await this.deps.repo.updateSync(trx, sync.id, {
        status: "completed",
        phase: "done",
        counts: JSON.stringify(state.counts),
        errors: JSON.stringify(state.errors),
        completed_at: now.toISOString(),
        updated_at: now.toISOString(),
      });
      await this.deps.repo.updateConnection(trx, sync.connection_id, { last_sync_at: now.toISOString() });
      await this.scheduleNextPass(trx, sync);
      await this.deps.events.emit(
        trx,
        "sync.completed",
        sync.account_id,
        {
          syncId: sync.id,
          connectionId: sync.connection_id,
          batchId: sync.batch_id,
          counts: state.counts,
        },
        now,
      );
    });
  }

  /** Ends the sync failed with the reason (idempotent: a finished sync stays as it is). */
  async fail(sync: SyncsTable, reason: string, state?: SyncState): Promise<void> {
    const now = this.deps.clock.now();
    await runInTransaction(this.deps.database.db, async (trx) => {
      const current = await this.deps.repo.findSync(trx, sync.id);
      if (current?.status !== "running") return;
      await this.deps.repo.updateSync(trx, sync.id, {
        status: "failed",
        failure_reason: reason,
        ...(state ? { counts: JSON.stringify(state.counts), errors: JSON.stringify(state.errors) } : {}),
        completed_at: now.toISOString(),
        updated_at: now.toISOString(),
      });
      await this.scheduleNextPass(trx, current);
      await this.deps.events.emit(
        trx,
        "sync.failed",
        sync.account_id,
        {
          syncId: sync.id,
          connectionId: sync.connection_id,
          reason,
          counts: state?.counts ?? JSON.parse(current.counts),
        },
        now,
      );
    });
  }

  /** A watch's next pass, every N minutes after this one ends (failed passes too: a sheet
   *  shared again later is picked up), until the watch is stopped. */
  private async scheduleNextPass(trx: Transaction<Schema>, sync: SyncsTable): Promise<void> {
    if (!sync.watch_id) return;
    const watch = await this.deps.repo.findWatch(trx, sync.watch_id);
    if (!watch || watch.stopped_at !== null) return;
    await this.deps.queue.send(
      WATCH_JOB,
      { watchId: watch.id, after: sync.id },
      {
        trx,
        startAfterMs: Number(watch.every_minutes) * this.deps.watchMinuteMs,
        singletonKey: `${watch.id}:${sync.id}`,
      },
    );
  }

  /** The job's retries are spent (429 storms or 5xx that never ended, a worker that kept dying). */
  async giveUp(syncId: string, error: string): Promise<void> {
    const sync = await this.deps.repo.findSync(this.deps.database.db, syncId);
    if (sync) await this.fail(sync, `gave up after repeated failures: ${error}`);
  }
}
