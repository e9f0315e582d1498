// Syncs of a connection (issue 26): started as a durable job in the existing queue, read back by
// id or per connection. The body's shape depends on the connection's kind.
import type { JobQueue } from "../jobs/job-queue.js";
import type { Clock } from "../lib/clock.js";
import { conflict, invalid, notFound } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import type { SyncsTable, SyncWatchesTable } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import type { IntegrationsRepo } from "./integrations.repo.js";
import {
  SYNC_JOB,
  type SyncCountsView,
  type SyncCreateInput,
  type SyncView,
} from "./integrations.schemas.js";

export const ZERO_COUNTS: SyncCountsView = {
  read: 0,
  created: 0,
  matched: 0,
  validated: 0,
  written: 0,
  skipped: 0,
  failed: 0,
};

export interface SyncParams {
  kind: "google_sheets" | "hubspot";
  spreadsheetId?: string;
  sheet?: string;
  listId?: string;
  validate: boolean;
  writeBack: boolean;
  mapping?: Record<string, string>;
}

export class SyncsService {
  constructor(
    private readonly deps: { database: Database; repo: IntegrationsRepo; clock: Clock; queue: JobQueue },
  ) {}

  /** Starts a pass. Throws not_found (no such live connection), conflict (it needs to be
   *  connected again) or invalid (the body does not fit the connection's kind). */
  async start(accountId: string, connectionId: string, input: SyncCreateInput): Promise<SyncView> {
    const { db } = this.deps.database;
    const connection = await this.deps.repo.findLiveConnection(db, accountId, connectionId);
    if (!connection) throw notFound("Connection");
    if (connection.status !== "active") throw needsReauth(connection.status_reason);
    const kind = connection.kind as SyncParams["kind"];
    if (kind === "google_sheets" && (!input.spreadsheetId || !input.sheet))
      throw invalidSource(
        input.spreadsheetId ? "sheet" : "spreadsheetId",
        "a Google Sheets sync needs spreadsheetId and sheet",
        "sync",
      );
    if (kind === "hubspot" && (input.spreadsheetId || input.sheet || input.mapping))
      throw invalidSource(
        "spreadsheetId",
        "a HubSpot sync takes listId, validate and writeBack only",
        "sync",
      );
    if (kind === "google_sheets" && input.listId)
      throw invalidSource("listId", "listId is for HubSpot connections", "sync");
    const params: SyncParams = {
      kind,
      ...(input.spreadsheetId ? { spreadsheetId: input.spreadsheetId } : {}),
      ...(input.sheet ? { sheet: input.sheet } : {}),
      ...(input.listId ? { listId: input.listId } : {}),
      validate: input.validate ?? true,
      writeBack: input.writeBack ?? true,
      ...(input.mapping ? { mapping: input.mapping } : {}),
    };
    const now = this.deps.clock.now();
    const watch: SyncWatchesTable | undefined = input.watch
      ? {
          id: newId("wat", now.getTime()),
          connection_id: connectionId,
          account_id: accountId,
          params: JSON.stringify(params),
          every_minutes: input.watch.everyMinutes,
          created_at: now.toISOString(),
          stopped_at: null,
        }
      : undefined;
    const row = newSyncRow(accountId, connectionId, params, now, watch?.id ?? null, null);
    await runInTransaction(db, async (trx) => {
      if (watch) await this.deps.repo.insertWatch(trx, watch);
      await this.deps.repo.insertSync(trx, row);
      await this.deps.queue.send(SYNC_JOB, { syncId: row.id }, { trx });
    });
    return toSyncView(row);
  }

  /** The next pass of a watch, after `previousSyncId`; none when the watch was stopped or its
   *  connection deleted, or when this hand-over already ran. */
  async startWatchPass(watchId: string, previousSyncId: string): Promise<void> {
    const { db } = this.deps.database;
    const watch = await this.deps.repo.findWatch(db, watchId);
    if (!watch || watch.stopped_at !== null) return;
    const connection = await this.deps.repo.findLiveConnection(db, watch.account_id, watch.connection_id);
    const previous = await this.deps.repo.findSync(db, previousSyncId);
    if (connection?.status !== "active" || !previous) return;
    if (await this.deps.repo.findPassAfter(db, watchId, previous.created_at)) return;
    const params = JSON.parse(watch.params) as SyncParams;
    // HubSpot passes read what changed since the previous pass finished (its own write-back
    // happened before that instant, so it does not trigger a re-read).
    const sinceMs = previous.completed_at
      ? Date.parse(previous.completed_at)
      : Date.parse(previous.created_at);
    const row = newSyncRow(
      watch.account_id,
      watch.connection_id,
      params,
      this.deps.clock.now(),
      watchId,
      sinceMs,
    );
    await runInTransaction(db, async (trx) => {
      await this.deps.repo.insertSync(trx, row);
      await this.deps.queue.send(SYNC_JOB, { syncId: row.id }, { trx });
    });
  }

  async watches(accountId: string, connectionId: string) {
    const rows = await this.deps.repo.liveWatches(this.deps.database.db, accountId, connectionId);
    return rows.map((w) => {
      const params = JSON.parse(w.params) as SyncParams;
      return {
        watchId: w.id,
        everyMinutes: Number(w.every_minutes),
        spreadsheetId: params.spreadsheetId ?? null,
        sheet: params.sheet ?? null,
        listId: params.listId ?? null,
        createdAt: w.created_at,
      };
    });
  }

  /** Throws not_found for a watch that is not live on this connection of this account. */
  async stopWatch(accountId: string, connectionId: string, watchId: string): Promise<void> {
    const stopped = await this.deps.repo.stopWatch(
      this.deps.database.db,
      accountId,
      connectionId,
      watchId,
      this.deps.clock.now().toISOString(),
    );
    if (!stopped) throw notFound("Watch");
  }

  async get(accountId: string, syncId: string): Promise<SyncView> {
    const row = await this.deps.repo.findSync(this.deps.database.db, syncId, accountId);
    if (!row) throw notFound("Sync");
    return toSyncView(row);
  }

  async list(accountId: string, connectionId: string): Promise<{ syncs: SyncView[]; total: number }> {
    const { db } = this.deps.database;
    if (!(await this.deps.repo.findLiveConnection(db, accountId, connectionId))) throw notFound("Connection");
    const rows = await this.deps.repo.listSyncs(db, accountId, connectionId, 100);
    return { syncs: rows.map(toSyncView), total: rows.length };
  }
}

function newSyncRow(
  accountId: string,
  connectionId: string,
  params: SyncParams,
  now: Date,
  watchId: string | null,
  sinceMs: number | null,
): SyncsTable {
  return {
    id: newId("sync", now.getTime()),
    connection_id: connectionId,
    account_id: accountId,
    status: "running",
    phase: "import",
    params: JSON.stringify(params),
    cursor: null,
    counts: JSON.stringify(ZERO_COUNTS),
    errors: "[]",
    batch_id: null,
    failure_reason: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    completed_at: null,
    watch_id: watchId,
    since_ms: sinceMs,
  };
}

function toSyncView(row: SyncsTable): SyncView {
  return {
    syncId: row.id,
    connectionId: row.connection_id,
    status: row.status as SyncView["status"],
    phase: row.phase,
    watchId: row.watch_id ?? null,
    counts: { ...ZERO_COUNTS, ...(JSON.parse(row.counts) as Partial<SyncCountsView>) },
    batchId: row.batch_id,
    errors: JSON.parse(row.errors) as SyncView["errors"],
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

/** A connection whose credentials were refused: it must be connected again before it is used. */
export function needsReauth(reason: string | null) {
  return conflict(`The connection needs to be connected again: ${reason ?? "credentials refused"}`, {
    reason: "needs_reauth",
  });
}

/** One field of a sync or preview request that does not fit the connection or its source. */
export function invalidSource(field: string, message: string, type: "sync" | "source") {
  return invalid([{ field, message, type }], message);
}
