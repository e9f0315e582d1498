// The only SQL for payments: webhook events seen once, and paid sessions recorded once.
import type { Transaction } from "kysely";
import type { PaymentsTable, Schema } from "../storage/schema.js";

export class PaymentsRepo {
  /** Records the event id; false when it was already recorded (a replay). */
  async recordEventOnce(
    trx: Transaction<Schema>,
    event: { id: string; provider: string; type: string },
    now: Date,
  ): Promise<boolean> {
    const inserted = await trx
      .insertInto("payment_events")
      .values({
        event_id: event.id,
        provider: event.provider,
        type: event.type,
        received_at: now.toISOString(),
      })
      .onConflict((oc) => oc.column("event_id").doNothing())
      .returning("event_id")
      .executeTakeFirst();
    return inserted !== undefined;
  }

  /** Claims the session for a payout; false when it was already paid out. */
  async claimSession(
    trx: Transaction<Schema>,
    payment: Omit<PaymentsTable, "ledger_entry_id">,
  ): Promise<boolean> {
    const inserted = await trx
      .insertInto("payments")
      .values({ ...payment, ledger_entry_id: "" })
      .onConflict((oc) => oc.column("session_id").doNothing())
      .returning("session_id")
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async setLedgerEntry(trx: Transaction<Schema>, sessionId: string, ledgerEntryId: string): Promise<void> {
    await trx
      .updateTable("payments")
      .set({ ledger_entry_id: ledgerEntryId })
      .where("session_id", "=", sessionId)
      .execute();
  }

  async findBySession(trx: Transaction<Schema>, sessionId: string) {
    return trx.selectFrom("payments").selectAll().where("session_id", "=", sessionId).executeTakeFirst();
  }
}
