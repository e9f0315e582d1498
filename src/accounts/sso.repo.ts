// The only SQL of dashboard single sign-on: started sign-ins (one per state, taken once) and
// sessions (by the hash of their cookie value).
import type { Kysely, Selectable } from "kysely";
import type { Executor } from "../storage/executor.js";
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

/** The executor with this module's tables (not in the shared Schema). */
const withSso = (executor: Kysely<Schema>) => executor.withTables<SsoTables>();

export class SsoRepo {
  async insertLogin(executor: Executor, row: SsoLoginsTable): Promise<void> {
    await withSso(executor).insertInto("sso_logins").values(row).execute();
  }

  /** The started sign-in for this state, deleted by this call: a state is answered once (the
   *  delete decides a race). Run it in a transaction so the row read is the row deleted. */
  async takeLogin(executor: Executor, state: string): Promise<SsoLoginsTable | undefined> {
    const trx = withSso(executor);
    const row = await trx.selectFrom("sso_logins").selectAll().where("state", "=", state).executeTakeFirst();
    if (!row) return undefined;
    const deleted = await trx.deleteFrom("sso_logins").where("state", "=", state).executeTakeFirst();
    return Number(deleted.numDeletedRows) === 1 ? row : undefined;
  }

  async deleteExpiredLogins(executor: Executor, nowIso: string): Promise<void> {
    await withSso(executor).deleteFrom("sso_logins").where("expires_at", "<", nowIso).execute();
  }

  async insertSession(executor: Executor, row: SsoSessionRow): Promise<void> {
    await withSso(executor).insertInto("sso_sessions").values(row).execute();
  }

  findLiveSession(executor: Executor, idHash: string, nowIso: string): Promise<SsoSessionRow | undefined> {
    return withSso(executor)
      .selectFrom("sso_sessions")
      .selectAll()
      .where("id_hash", "=", idHash)
      .where("ended_at", "is", null)
      .where("expires_at", ">", nowIso)
      .executeTakeFirst();
  }

  async endSession(executor: Executor, idHash: string, nowIso: string): Promise<void> {
    await withSso(executor)
      .updateTable("sso_sessions")
      .set({ ended_at: nowIso })
      .where("id_hash", "=", idHash)
      .where("ended_at", "is", null)
      .execute();
  }
}
