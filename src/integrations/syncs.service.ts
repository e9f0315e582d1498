// Syncs of a connection (issue 26): started as a durable job in the existing queue, read back by
// id or per connection. The body's shape depends on the connection's kind.
import type { JobQueue } from "../jobs/job-queue.js";
import type { Clock } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import type { SyncsTable } from "../storage/schema.js";
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

export type StartSyncOutcome =
  | { kind: "started"; sync: SyncView }
  | { kind: "connection_not_found" }
  | { kind: "needs_reauth"; reason: string | null }
  | { kind: "invalid"; field: string; message: string };

export class SyncsService {
  constructor(
    private readonly deps: { database: Database; repo: IntegrationsRepo; clock: Clock; queue: JobQueue },
  ) {}

  async start(accountId: string, connectionId: string, input: SyncCreateInput): Promise<StartSyncOutcome> {
    const { db } = this.deps.database;
    const connection = await this.deps.repo.findLiveConnection(db, accountId, connectionId);
    if (!connection) return { kind: "connection_not_found" };
    if (connection.status !== "active") return { kind: "needs_reauth", reason: connection.status_reason };
    const kind = connection.kind as SyncParams["kind"];
    if (kind === "google_sheets" && (!input.spreadsheetId || !input.sheet))
      return {
        kind: "invalid",
        field: input.spreadsheetId ? "sheet" : "spreadsheetId",
        message: "a Google Sheets sync needs spreadsheetId and sheet",
      };
    if (kind === "hubspot" && (input.spreadsheetId || input.sheet || input.mapping))
      return {
        kind: "invalid",
        field: "spreadsheetId",
        message: "a HubSpot sync takes listId, validate and writeBack only",
      };
    if (kind === "google_sheets" && input.listId)
      return { kind: "invalid", field: "listId", message: "listId is for HubSpot connections" };
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
    const row: SyncsTable = {
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
    };
    await runInTransaction(db, async (trx) => {
      await this.deps.repo.insertSync(trx, row);
      await this.deps.queue.send(SYNC_JOB, { syncId: row.id }, { trx });
    });
    return { kind: "started", sync: toSyncView(row) };
  }

  async get(accountId: string, syncId: string): Promise<SyncView | null> {
    const row = await this.deps.repo.findSync(this.deps.database.db, syncId, accountId);
    return row ? toSyncView(row) : null;
  }

  async list(accountId: string, connectionId: string): Promise<{ syncs: SyncView[]; total: number } | null> {
    const { db } = this.deps.database;
    if (!(await this.deps.repo.findLiveConnection(db, accountId, connectionId))) return null;
    const rows = await this.deps.repo.listSyncs(db, accountId, connectionId, 100);
    return { syncs: rows.map(toSyncView), total: rows.length };
  }
}

export function toSyncView(row: SyncsTable): SyncView {
  return {
    syncId: row.id,
    connectionId: row.connection_id,
    status: row.status as SyncView["status"],
    phase: row.phase,
    counts: { ...ZERO_COUNTS, ...(JSON.parse(row.counts) as Partial<SyncCountsView>) },
    batchId: row.batch_id,
    errors: JSON.parse(row.errors) as SyncView["errors"],
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}
