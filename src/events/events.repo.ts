// The only SQL of the `events` outbox: the bus writes events in the transaction of the change that
// caused them, the webhook dispatcher reads the undispatched ones, marks them dispatched and
// purges old ones. Every method takes its executor: writes commit with the caller's change.
import type { Transaction } from "kysely";
import { firstIdAt } from "../lib/ids.js";
import { deleteSelected } from "../storage/bounded-delete.js";
import { insertInChunks } from "../storage/chunked-insert.js";
import type { Executor } from "../storage/executor.js";
import type { EventsTable, Schema } from "../storage/schema.js";

export class EventsRepo {
  insert(executor: Executor, row: EventsTable): Promise<void> {
    return insertInChunks(executor, "events", [row]);
  }

  /** Many events, in as few statements as the database's parameter limit allows. */
  insertMany(executor: Executor, rows: readonly EventsTable[]): Promise<void> {
    return insertInChunks(executor, "events", rows);
  }

  /** The oldest undispatched events; on PostgreSQL rows another dispatcher holds are skipped. */
  pending(trx: Transaction<Schema>, limit: number, skipLocked: boolean) {
    const query = trx
      .selectFrom("events")
      .select(["id", "account_id", "type", "payload"])
      .where("dispatched", "=", 0)
      .orderBy("id")
      .limit(limit);
    return skipLocked ? query.forUpdate().skipLocked().execute() : query.execute();
  }

  async markDispatched(trx: Transaction<Schema>, eventIds: string[]): Promise<void> {
    await trx.updateTable("events").set({ dispatched: 1 }).where("id", "in", eventIds).execute();
  }

  /** Deletes up to `limit` events already fanned out and created before `cutoff`; returns how
   *  many. An event not yet dispatched is kept whatever its age. */
  async purgeDispatchedBefore(executor: Executor, cutoff: string, limit: number): Promise<number> {
    const doomed = await executor
      .selectFrom("events")
      .select("id")
      .where("created_at", "<", cutoff)
      // No index on created_at: the id (time-sorted) bounds the scan on (dispatched, id).
      .where("dispatched", "=", 1)
      .where("id", "<", firstIdAt("evt", Date.parse(cutoff)))
      .limit(limit)
      .execute();
    return deleteSelected(executor, "events", doomed);
  }
}
