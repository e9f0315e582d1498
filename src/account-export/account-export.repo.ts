// The only SQL of account exports: the export rows, and every table the account holds, read in
// id order a page at a time (secrets and key hashes left out).
import type { Executor } from "../storage/executor.js";
import type { AccountExportsTable, Schema } from "../storage/schema.js";

/** Each resource of the archive: its table and the columns that leave (never secrets or hashes). */
export const EXPORTED = {
  leads: { table: "leads", key: "id" },
  batches: { table: "batches", key: "id" },
  batch_items: { table: "batch_items", key: "id" },
  validation_jobs: { table: "validation_jobs", key: "id" },
  events: { table: "events", key: "id" },
  webhooks: { table: "webhooks", key: "id", omit: ["secret"] },
  webhook_deliveries: { table: "webhook_deliveries", key: "id" },
  api_keys: { table: "api_keys", key: "id", omit: ["key_hash"] },
  credit_ledger: { table: "credit_ledger", key: "id" },
  audit_entries: { table: "audit_entries", key: "id" },
  account_settings: { table: "account_settings", key: "account_id" },
} as const satisfies Record<string, { table: keyof Schema; key: string; omit?: readonly string[] }>;

export type ExportedResource = keyof typeof EXPORTED;

export class AccountExportRepo {
  async insert(db: Executor, row: AccountExportsTable): Promise<void> {
    await db.insertInto("account_exports").values(row).execute();
  }

  find(db: Executor, accountId: string, exportId: string) {
    return db
      .selectFrom("account_exports")
      .select(["id", "status", "size_bytes", "error", "created_at", "completed_at", "expires_at"])
      .where("id", "=", exportId)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
  }

  findForDownload(db: Executor, exportId: string) {
    return db.selectFrom("account_exports").selectAll().where("id", "=", exportId).executeTakeFirst();
  }

  async finish(db: Executor, exportId: string, archive: Buffer, at: string): Promise<void> {
    await db
      .updateTable("account_exports")
      .set({ status: "ready", archive, size_bytes: archive.length, completed_at: at })
      .where("id", "=", exportId)
      .execute();
  }

  async fail(db: Executor, exportId: string, error: string, at: string): Promise<void> {
    await db
      .updateTable("account_exports")
      .set({ status: "failed", error, completed_at: at })
      .where("id", "=", exportId)
      .execute();
  }

  /** Archives past their link's life lose their bytes (the row stays as a record). */
  async dropExpired(db: Executor, now: string): Promise<number> {
    const result = await db
      .updateTable("account_exports")
      .set({ archive: null })
      .where("expires_at", "<", now)
      .where("archive", "is not", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** A page of one resource's rows of the account, after `afterKey` in key order. */
  async page(db: Executor, resource: ExportedResource, accountId: string, afterKey: string, limit: number) {
    const spec = EXPORTED[resource];
    const rows = (await db
      .selectFrom(spec.table as "leads")
      .selectAll()
      .where("account_id", "=", accountId)
      .where(spec.key as "id", ">", afterKey)
      .orderBy(spec.key as "id")
      .limit(limit)
      .execute()) as unknown as Record<string, unknown>[];
    const omit: readonly string[] = "omit" in spec ? spec.omit : [];
    return rows.map((row) => {
      for (const column of omit) delete row[column];
      return row;
    });
  }
}
