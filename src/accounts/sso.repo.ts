// The only SQL of dashboard single sign-on: started sign-ins (one per state, taken once) and
// sessions (by the hash of their cookie value).
import type { Kysely, Selectable } from "kysely";
import type { Database } from "../storage/db.js";
import type { Schema } from "../storage/schema.js";

export interface SsoLoginsTable {
  state: string;
  code_verifier: string;
  nonce: string;
  expires_at: string;
}

interface SsoSessionsTable {
  id_hash: string;
  subject: string;
  email: string | null;
  email_verified: number;
  csrf_token: string;
  created_at: string;
  expires_at: string;
  ended_at: string | null;
}

type SsoTables = { sso_logins: SsoLoginsTable; sso_sessions: SsoSessionsTable };
export type SsoSessionRow = Selectable<SsoSessionsTable>;

export class SsoRepo {
  private readonly db: Kysely<Schema & SsoTables>;

  constructor(database: Database) {
    this.db = database.db.withTables<SsoTables>();
  }

  async insertLogin(row: SsoLoginsTable): Promise<void> {
    await this.db.insertInto("sso_logins").values(row).execute();
  }

  /** The started sign-in for this state, deleted in the same step: a state is answered once. */
  async takeLogin(state: string): Promise<SsoLoginsTable | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom("sso_logins")
        .selectAll()
        .where("state", "=", state)
        .executeTakeFirst();
      if (!row) return undefined;
      const deleted = await trx.deleteFrom("sso_logins").where("state", "=", state).executeTakeFirst();
      return Number(deleted.numDeletedRows) === 1 ? row : undefined;
    });
  }

  async deleteExpiredLogins(nowIso: string): Promise<void> {
    await this.db.deleteFrom("sso_logins").where("expires_at", "<", nowIso).execute();
  }

  async insertSession(row: SsoSessionRow): Promise<void> {
    await this.db.insertInto("sso_sessions").values(row).execute();
  }

  findLiveSession(idHash: string, nowIso: string): Promise<SsoSessionRow | undefined> {
    return this.db
      .selectFrom("sso_sessions")
      .selectAll()
      .where("id_hash", "=", idHash)
      .where("ended_at", "is", null)
      .where("expires_at", ">", nowIso)
      .executeTakeFirst();
  }

  async endSession(idHash: string, nowIso: string): Promise<void> {
    await this.db
      .updateTable("sso_sessions")
      .set({ ended_at: nowIso })
      .where("id_hash", "=", idHash)
      .where("ended_at", "is", null)
      .execute();
  }
}
