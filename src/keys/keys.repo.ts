// The only SQL for API keys.
import type { Insertable, Kysely } from "kysely";
import type { Database } from "../storage/db.js";
import { prepareRead } from "../storage/prepared.js";
import type { ApiKeysTable, Schema } from "../storage/schema.js";

export class KeysRepo {
  private readonly db: Kysely<Schema>;
  /** Runs on every request made with an API key: compiled once. */
  private readonly activeKeyByHash;

  constructor(database: Database) {
    this.db = database.db;
    this.activeKeyByHash = prepareRead(database, (db, p: { hash: string }) =>
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

  insert(row: Insertable<ApiKeysTable>) {
    return this.db.insertInto("api_keys").values(row).execute();
  }

  findActiveKeyByHash(hash: string) {
    return this.activeKeyByHash.first({ hash });
  }

  listActiveKeys(accountId: string) {
    return this.db
      .selectFrom("api_keys")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("revoked_at", "is", null)
      .orderBy("id", "asc")
      .execute();
  }

  async isActiveKeyOf(accountId: string, keyId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom("api_keys")
      .select("id")
      .where("id", "=", keyId)
      .where("account_id", "=", accountId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The account's active publishable key with this id (the widget token names it). */
  findActiveKeyById(keyId: string) {
    return this.db
      .selectFrom("api_keys")
      .select(["id", "account_id", "type", "mode"])
      .where("id", "=", keyId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
  }

  /** Returns true when an active key of this account was revoked. */
  async revoke(accountId: string, keyId: string, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable("api_keys")
      .set({ revoked_at: at })
      .where("id", "=", keyId)
      .where("account_id", "=", accountId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Writes last_used only when the stored value is older than `staleBefore`. */
  touchLastUsed(keyId: string, at: string, staleBefore: string) {
    return this.db
      .updateTable("api_keys")
      .set({ last_used_at: at })
      .where("id", "=", keyId)
      .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", staleBefore)]))
      .execute();
  }
}
