// The only SQL for webhook endpoints and their delivery records (the outbox is events.repo.ts).
import { sql, type Transaction } from "kysely";
import { lockForTransaction } from "../storage/advisory-locks.js";
import { deleteSelected } from "../storage/bounded-delete.js";
import type { DialectCaps } from "../storage/dialect.js";
import type { Executor } from "../storage/executor.js";
import type { Schema, WebhookDeliveriesTable, WebhooksTable } from "../storage/schema.js";

export type WebhookChanges = Partial<
  Pick<
    WebhooksTable,
    "name" | "url" | "description" | "events" | "active" | "max_retries" | "retry_delays" | "updated_at"
  >
>;

export interface AttemptWrite {
  /** Attempts already recorded when this attempt started: the write applies only if still so. */
  previousAttempts: number;
  status: WebhookDeliveriesTable["status"];
  url: string;
  httpStatus: number | null;
  responseBody: string | null;
  errorMessage: string | null;
  attemptLog: string;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  at: string;
}

export class WebhooksRepo {
  insertWebhook(db: Executor, row: WebhooksTable) {
    return db.insertInto("webhooks").values(row).execute();
  }

  findWebhook(db: Executor, accountId: string, webhookId: string) {
    return db
      .selectFrom("webhooks")
      .selectAll()
      .where("id", "=", webhookId)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
  }

  findWebhookById(db: Executor, webhookId: string) {
    return db.selectFrom("webhooks").selectAll().where("id", "=", webhookId).executeTakeFirst();
  }

  listWebhooks(db: Executor, accountId: string) {
    return db.selectFrom("webhooks").selectAll().where("account_id", "=", accountId).orderBy("id").execute();
  }

  /** Holds other creators of this account's endpoints until `trx` ends (the count limit). */
  lockAccountEndpoints(trx: Transaction<Schema>, caps: DialectCaps, accountId: string): Promise<void> {
    return lockForTransaction(trx, caps, `webhooks:${accountId}`, [0]);
  }

  async countWebhooks(db: Executor, accountId: string): Promise<number> {
    const row = await db
      .selectFrom("webhooks")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  updateWebhook(db: Executor, accountId: string, webhookId: string, changes: WebhookChanges) {
    return db
      .updateTable("webhooks")
      .set(changes)
      .where("id", "=", webhookId)
      .where("account_id", "=", accountId)
      .returningAll()
      .executeTakeFirst();
  }

  rotateSecret(db: Executor, accountId: string, webhookId: string, secret: string, at: string) {
    return db
      .updateTable("webhooks")
      .set({ secret, secret_rotated_at: at, updated_at: at })
      .where("id", "=", webhookId)
      .where("account_id", "=", accountId)
      .returning(["id", "secret_rotated_at"])
      .executeTakeFirst();
  }

  /** Removes the endpoint and its history; queued attempts then find nothing to send. */
  async deleteWebhook(trx: Transaction<Schema>, accountId: string, webhookId: string): Promise<boolean> {
    const gone = await trx
      .deleteFrom("webhooks")
      .where("id", "=", webhookId)
      .where("account_id", "=", accountId)
      .returning("id")
      .executeTakeFirst();
    if (!gone) return false;
    await trx.deleteFrom("webhook_deliveries").where("webhook_id", "=", webhookId).execute();
    return true;
  }

  activeWebhooksOf(db: Executor, accountIds: string[]) {
    return db
      .selectFrom("webhooks")
      .select(["id", "account_id", "url", "events"])
      .where("account_id", "in", accountIds)
      .where("active", "=", 1)
      .execute();
  }

  /** Inserts the rows not there yet (one per event and endpoint) and returns the ids inserted. */
  async insertDeliveries(trx: Transaction<Schema>, rows: WebhookDeliveriesTable[]): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < rows.length; i += 200) {
      const inserted = await trx
        .insertInto("webhook_deliveries")
        .values(rows.slice(i, i + 200))
        .onConflict((oc) => oc.doNothing())
        .returning("id")
        .execute();
      ids.push(...inserted.map((r) => r.id));
    }
    return ids;
  }

  insertDelivery(db: Executor, row: WebhookDeliveriesTable) {
    return db.insertInto("webhook_deliveries").values(row).execute();
  }

  findDelivery(db: Executor, deliveryId: string) {
    return db.selectFrom("webhook_deliveries").selectAll().where("id", "=", deliveryId).executeTakeFirst();
  }

  findDeliveryOfWebhook(db: Executor, accountId: string, webhookId: string, deliveryId: string) {
    return db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("id", "=", deliveryId)
      .where("webhook_id", "=", webhookId)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
  }

  listDeliveries(db: Executor, webhookId: string, limit: number, offset: number) {
    return db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("webhook_id", "=", webhookId)
      .orderBy("id", "desc")
      .limit(limit)
      .offset(offset)
      .execute();
  }

  async countDeliveries(db: Executor, webhookId: string): Promise<number> {
    const row = await db
      .selectFrom("webhook_deliveries")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("webhook_id", "=", webhookId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Records one attempt unless another run of the same attempt already did; true when written. */
  async recordAttempt(trx: Transaction<Schema>, deliveryId: string, write: AttemptWrite): Promise<boolean> {
    const row = await trx
      .updateTable("webhook_deliveries")
      .set({
        status: write.status,
        url: write.url,
        http_status: write.httpStatus,
        response_body: write.responseBody,
        error_message: write.errorMessage,
        attempts: write.previousAttempts + 1,
        attempt_log: write.attemptLog,
        next_attempt_at: write.nextAttemptAt,
        delivered_at: write.deliveredAt,
        updated_at: write.at,
      })
      .where("id", "=", deliveryId)
      .where("attempts", "=", write.previousAttempts)
      .where("status", "=", "pending")
      .returning("id")
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Ends a pending delivery without an attempt (its endpoint was switched off). */
  async closeDelivery(db: Executor, deliveryId: string, errorMessage: string, at: string): Promise<boolean> {
    const row = await db
      .updateTable("webhook_deliveries")
      .set({ status: "failed", error_message: errorMessage, next_attempt_at: null, updated_at: at })
      .where("id", "=", deliveryId)
      .where("status", "=", "pending")
      .returning("id")
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Keeps delivery_stats current: one attempt, and the delivery's outcome once it is final. */
  addStats(
    db: Executor,
    webhookId: string,
    change: { attempts: number; succeeded: boolean; failedForGood: boolean; at: string },
  ) {
    return db
      .updateTable("webhooks")
      .set({
        total_attempts: sql<number>`total_attempts + ${change.attempts}`,
        successful_deliveries: sql<number>`successful_deliveries + ${change.succeeded ? 1 : 0}`,
        failed_deliveries: sql<number>`failed_deliveries + ${change.failedForGood ? 1 : 0}`,
        ...(change.attempts > 0 ? { last_delivery_at: change.at } : {}),
        ...(change.succeeded ? { last_success_at: change.at } : {}),
      })
      .where("id", "=", webhookId)
      .execute();
  }

  /** Deletes up to `limit` delivery records created before `cutoff`; returns how many. */
  async purgeDeliveriesBefore(db: Executor, cutoff: string, limit: number): Promise<number> {
    const doomed = await db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("created_at", "<", cutoff)
      .limit(limit)
      .execute();
    return deleteSelected(db, "webhook_deliveries", doomed);
  }
}
