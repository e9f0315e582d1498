// The only SQL for API keys.
import type { Insertable } from "kysely";
import type { Database } from "../storage/db.js";
import type { Executor } from "../storage/executor.js";
import { prepareRead } from "../storage/prepared.js";
import type { ApiKeysTable } from "../storage/schema.js";

/** The active key with this hash: runs on every request made with an API key, so it is compiled
 *  once per database (`first({ hash })`). */
export function prepareActiveKeyByHash(database: Database) {
  return prepareRead(database, (db, p: { hash: string }) =>
    db
      .selectFrom("api_keys")
      .select([
        "id",
        "account_id",
        "key_hash",
        "last_used_at",
        "type",
        "mode",
        "permissions",
        "allowed_ips",
        "allowed_origins",
        "expires_at",
        "widget_settings",
      ])
      .where("key_hash", "=", p.hash)
      .where("revoked_at", "is", null),
  );
}

export class KeysRepo {
  insert(executor: Executor, row: Insertable<ApiKeysTable>) {
    return executor.insertInto("api_keys").values(row).execute();
  }

  listActiveKeys(executor: Executor, accountId: string) {
    return executor
      .selectFrom("api_keys")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("revoked_at", "is", null)
      .orderBy("id", "asc")
      .execute();
  }

  async isActiveKeyOf(executor: Executor, accountId: string, keyId: string): Promise<boolean> {
    const row = await executor
      .selectFrom("api_keys")
      .select("id")
      .where("id", "=", keyId)
      .where("account_id", "=", accountId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The account's active publishable key with this id (the widget token names it). */
  findActiveKeyById(executor: Executor, keyId: string) {
    return executor
      .selectFrom("api_keys")
      .select(["id", "account_id", "type", "mode"])
      .where("id", "=", keyId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
  }

  /** Returns true when an active key of this account was revoked. */
  async revoke(executor: Executor, accountId: string, keyId: string, at: string): Promise<boolean> {
    const result = await executor
      .updateTable("api_keys")
      .set({ revoked_at: at })
      .where("id", "=", keyId)
      .where("account_id", "=", accountId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Writes last_used only when the stored value is older than `staleBefore`. */
  touchLastUsed(executor: Executor, keyId: string, at: string, staleBefore: string) {
    return executor
      .updateTable("api_keys")
      .set({ last_used_at: at })
      .where("id", "=", keyId)
      .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", staleBefore)]))
      .execute();
  }
}
