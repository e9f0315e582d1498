// The only SQL for used dashboard sign-in tokens (docs/decisions/0008-dashboard-sign-in.md): one row
// per exchanged token id, so a link works once; rows go once the token has expired anyway.
import type { Kysely } from "kysely";
import type { Executor } from "../storage/executor.js";
import type { Schema } from "../storage/schema.js";

export interface SigninTokensTable {
  jti: string;
  account_id: string;
  used_at: string;
  expires_at: string;
}

/** The executor with this module's table (not in the shared Schema). */
const withSigninTokens = (executor: Kysely<Schema>) =>
  executor.withTables<{ signin_tokens: SigninTokensTable }>();

export class SigninTokensRepo {
  /** Drops the records of tokens that expired before `nowIso`: they are refused by their `exp` anyway. */
  async deleteExpired(executor: Executor, nowIso: string): Promise<void> {
    await withSigninTokens(executor).deleteFrom("signin_tokens").where("expires_at", "<", nowIso).execute();
  }

  /** Records the token as used. False when it already was (the primary key holds under races). */
  async markUsedOnce(executor: Executor, row: SigninTokensTable): Promise<boolean> {
    const inserted = await withSigninTokens(executor)
      .insertInto("signin_tokens")
      .values(row)
      .onConflict((oc) => oc.column("jti").doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  }
}
