// The only SQL for payments: the checkout sessions we sold, webhook events seen once, and paid
// sessions recorded once.
import type { Kysely, Transaction } from "kysely";
import type { CheckoutSessionsTable, PaymentsTable, Schema } from "../storage/schema.js";

export class PaymentsRepo {
  async recordCheckoutSession(db: Kysely<Schema>, session: CheckoutSessionsTable): Promise<void> {
    await db.insertInto("checkout_sessions").values(session).execute();
  }

  async findCheckoutSession(
    db: Kysely<Schema>,
    sessionId: string,
  ): Promise<CheckoutSessionsTable | undefined> {
    const row = await db
      .selectFrom("checkout_sessions")
      .selectAll()
      .where("session_id", "=", sessionId)
      .executeTakeFirst();
    // pg returns bigint as text unless parsed; the service compares numbers.
    return (
      row && { ...row, amount_minor: Number(row.amount_minor), milli_credits: Number(row.milli_credits) }
    );
  }

  async isEventRecorded(db: Kysely<Schema>, eventId: string): Promise<boolean> {
    const row = await db
      .selectFrom("payment_events")
      .select("event_id")
      .where("event_id", "=", eventId)
      .executeTakeFirst();
    return row !== undefined;
  }

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
