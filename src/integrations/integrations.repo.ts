// The only SQL of the integrations module: connections, syncs and their items.
import type { Executor } from "../storage/executor.js";
import type { ConnectionsTable, SyncItemsTable, SyncsTable, SyncWatchesTable } from "../storage/schema.js";

export class IntegrationsRepo {
  insertConnection(ex: Executor, row: ConnectionsTable) {
    return ex.insertInto("connections").values(row).execute();
  }

  findLiveConnection(ex: Executor, accountId: string, id: string) {
    return ex
      .selectFrom("connections")
      .selectAll()
      .where("id", "=", id)
      .where("account_id", "=", accountId)
      .where("deleted_at", "is", null)
      .executeTakeFirst();
  }

  listLiveConnections(ex: Executor, accountId: string) {
    return ex
      .selectFrom("connections")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("deleted_at", "is", null)
      .orderBy("id")
      .execute();
  }

  async countLiveConnections(ex: Executor): Promise<number> {
    const row = await ex
      .selectFrom("connections")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("deleted_at", "is", null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  updateConnection(ex: Executor, id: string, changes: Partial<ConnectionsTable>) {
    return ex.updateTable("connections").set(changes).where("id", "=", id).executeTakeFirst();
  }

  insertSync(ex: Executor, row: SyncsTable) {
    return ex.insertInto("syncs").values(row).execute();
  }

  findSync(ex: Executor, id: string, accountId?: string) {
    let query = ex.selectFrom("syncs").selectAll().where("id", "=", id);
    if (accountId !== undefined) query = query.where("account_id", "=", accountId);
    return query.executeTakeFirst();
  }

  listSyncs(ex: Executor, accountId: string, connectionId: string, limit: number) {
    return ex
      .selectFrom("syncs")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("connection_id", "=", connectionId)
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
  }

  updateSync(ex: Executor, id: string, changes: Partial<SyncsTable>) {
    return ex.updateTable("syncs").set(changes).where("id", "=", id).executeTakeFirst();
  }

  /** Items already recorded are kept as they are (a resumed page records nothing twice). */
  async insertItems(ex: Executor, rows: SyncItemsTable[]) {
    if (rows.length === 0) return;
    await ex
      .insertInto("sync_items")
      .values(rows)
      .onConflict((oc) => oc.columns(["sync_id", "item_key"]).doNothing())
      .execute();
  }

  items(ex: Executor, syncId: string) {
    return ex.selectFrom("sync_items").selectAll().where("sync_id", "=", syncId).orderBy("seq").execute();
  }

  /** written: 0 pending, 2 sent and not yet confirmed (a resumed pass checks the source), 1 done. */
  async markWritten(ex: Executor, syncId: string, keys: string[], state: 1 | 2 = 1) {
    if (keys.length === 0) return;
    await ex
      .updateTable("sync_items")
      .set({ written: state })
      .where("sync_id", "=", syncId)
      .where("item_key", "in", keys)
      .execute();
  }

  insertWatch(ex: Executor, row: SyncWatchesTable) {
    return ex.insertInto("sync_watches").values(row).execute();
  }

  findWatch(ex: Executor, id: string) {
    return ex.selectFrom("sync_watches").selectAll().where("id", "=", id).executeTakeFirst();
  }

  liveWatches(ex: Executor, accountId: string, connectionId: string) {
    return ex
      .selectFrom("sync_watches")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("connection_id", "=", connectionId)
      .where("stopped_at", "is", null)
      .orderBy("id")
      .execute();
  }

  async stopWatch(
    ex: Executor,
    accountId: string,
    connectionId: string,
    id: string,
    at: string,
  ): Promise<boolean> {
    const result = await ex
      .updateTable("sync_watches")
      .set({ stopped_at: at })
      .where("id", "=", id)
      .where("account_id", "=", accountId)
      .where("connection_id", "=", connectionId)
      .where("stopped_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** A pass of this watch already scheduled after `syncId` (the hand-over ran twice). */
  findPassAfter(ex: Executor, watchId: string, createdAfter: string) {
    return ex
      .selectFrom("syncs")
      .select("id")
      .where("watch_id", "=", watchId)
      .where("created_at", ">", createdAfter)
      .executeTakeFirst();
  }
}
