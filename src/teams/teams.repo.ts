// The only SQL of the teams module: members (one current row per subject and account; removed
// rows kept, with removed_at, so keys can still name who made them) and invitations (token
// hashes, single use by a conditional update).
import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database, Db } from "../storage/db.js";
import type { Executor } from "../storage/executor.js";
import type { Schema } from "../storage/schema.js";
import type { Role } from "./roles.js";

interface TeamMembersTable {
  id: string;
  account_id: string;
  subject: string;
  email: string | null;
  role: string;
  created_at: string;
  updated_at: string;
  removed_at: string | null;
}

interface TeamInvitationsTable {
  id: string;
  account_id: string;
  email: string;
  role: string;
  token_hash: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by: string | null;
}

type TeamTables = { team_members: TeamMembersTable; team_invitations: TeamInvitationsTable };
/** The executor with this module's tables (not in the shared Schema). */
const withTeams = (executor: Kysely<Schema>) => executor.withTables<TeamTables>();
/** A write's own transaction, handed to the caller to record it (the audit entry) before commit. */
export type InTransaction = (trx: Transaction<Schema>) => Promise<unknown>;
const asSchemaTrx = (trx: Transaction<Schema & TeamTables>) => trx as unknown as Transaction<Schema>;
export type MemberRow = Selectable<TeamMembersTable>;
export type InvitationRow = Selectable<TeamInvitationsTable>;

export class TeamsRepo {
  /** Several writers at once (PostgreSQL): owner rows are locked while the last-owner rule is checked. */
  private readonly lockOwners: boolean;

  constructor(database: Pick<Database, "caps">) {
    this.lockOwners = database.caps.concurrentWriters;
  }

  findCurrentMember(executor: Executor, accountId: string, subject: string): Promise<MemberRow | undefined> {
    return withTeams(executor)
      .selectFrom("team_members")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("subject", "=", subject)
      .where("removed_at", "is", null)
      .executeTakeFirst();
  }

  findMemberById(executor: Executor, accountId: string, memberId: string): Promise<MemberRow | undefined> {
    return withTeams(executor)
      .selectFrom("team_members")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("id", "=", memberId)
      .executeTakeFirst();
  }

  listCurrentMembers(executor: Executor, accountId: string): Promise<MemberRow[]> {
    return withTeams(executor)
      .selectFrom("team_members")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("removed_at", "is", null)
      .orderBy("id", "asc")
      .execute();
  }

  /** Members by id, removed ones included (the key list names who made each key). */
  listMembersById(executor: Executor, accountId: string, ids: string[]): Promise<MemberRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return withTeams(executor)
      .selectFrom("team_members")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("id", "in", ids)
      .execute();
  }

  async hasAnyMember(executor: Executor, accountId: string): Promise<boolean> {
    const row = await withTeams(executor)
      .selectFrom("team_members")
      .select("id")
      .where("account_id", "=", accountId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Inserts a member unless the subject already is one (the partial unique index holds under races). */
  async insertMemberOnce(executor: Executor, row: MemberRow): Promise<boolean> {
    const result = await withTeams(executor)
      .insertInto("team_members")
      .values(row)
      .onConflict((oc) => oc.columns(["account_id", "subject"]).where("removed_at", "is", null).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /**
   * Changes a current member's role, or removes them, unless that would leave the account without
   * an owner. The account's owner rows are locked first (PostgreSQL; SQLite serialises writers),
   * so two owners demoting each other at once cannot both succeed.
   */
  async changeMember(
    db: Db,
    accountId: string,
    memberId: string,
    change: { role: Role } | { removedAt: string },
    nowIso: string,
    onChanged?: InTransaction,
  ): Promise<"changed" | "missing" | "last_owner"> {
    return withTeams(db)
      .transaction()
      .execute(async (trx) => {
        const owners = await trx
          .selectFrom("team_members")
          .select(["id"])
          .where("account_id", "=", accountId)
          .where("role", "=", "owner")
          .where("removed_at", "is", null)
          .$call((q) => (this.lockOwners ? q.forUpdate() : q))
          .execute();
        const target = await trx
          .selectFrom("team_members")
          .select(["id", "role"])
          .where("account_id", "=", accountId)
          .where("id", "=", memberId)
          .where("removed_at", "is", null)
          .executeTakeFirst();
        if (!target) return "missing";
        const staysOwner = "role" in change && change.role === "owner";
        if (target.role === "owner" && !staysOwner && owners.length <= 1) return "last_owner";
        await trx
          .updateTable("team_members")
          .set(
            "role" in change
              ? { role: change.role, updated_at: nowIso }
              : { removed_at: change.removedAt, updated_at: nowIso },
          )
          .where("id", "=", memberId)
          .execute();
        await onChanged?.(asSchemaTrx(trx));
        return "changed";
      });
  }

  insertInvitation(db: Db, row: InvitationRow, onInserted?: InTransaction): Promise<unknown> {
    return withTeams(db)
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto("team_invitations").values(row).execute();
        await onInserted?.(asSchemaTrx(trx));
      });
  }

  findInvitationById(executor: Executor, accountId: string, id: string): Promise<InvitationRow | undefined> {
    return withTeams(executor)
      .selectFrom("team_invitations")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("id", "=", id)
      .executeTakeFirst();
  }

  /**
   * Deletes an invitation still waiting for its invitee (not accepted); false when there is none,
   * or it was accepted meanwhile. The audit entry keeps the record of who was invited.
   */
  async deletePendingInvitation(
    db: Db,
    accountId: string,
    id: string,
    onDeleted?: InTransaction,
  ): Promise<boolean> {
    return withTeams(db)
      .transaction()
      .execute(async (trx) => {
        const result = await trx
          .deleteFrom("team_invitations")
          .where("account_id", "=", accountId)
          .where("id", "=", id)
          .where("accepted_at", "is", null)
          .executeTakeFirst();
        if (Number(result.numDeletedRows) !== 1) return false;
        await onDeleted?.(asSchemaTrx(trx));
        return true;
      });
  }

  /** The accounts a subject is a current member of, with the role in each. */
  listMemberships(
    executor: Executor,
    subject: string,
  ): Promise<Pick<MemberRow, "account_id" | "role" | "id">[]> {
    return withTeams(executor)
      .selectFrom("team_members")
      .select(["account_id", "role", "id"])
      .where("subject", "=", subject)
      .where("removed_at", "is", null)
      .orderBy("account_id", "asc")
      .execute();
  }

  findInvitationByHash(executor: Executor, tokenHash: string): Promise<InvitationRow | undefined> {
    return withTeams(executor)
      .selectFrom("team_invitations")
      .selectAll()
      .where("token_hash", "=", tokenHash)
      .executeTakeFirst();
  }

  listPendingInvitations(executor: Executor, accountId: string, nowIso: string): Promise<InvitationRow[]> {
    return withTeams(executor)
      .selectFrom("team_invitations")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("accepted_at", "is", null)
      .where("expires_at", ">", nowIso)
      .orderBy("id", "asc")
      .execute();
  }

  /** Marks the invitation used; false when another acceptance got there first (single use). */
  async markAccepted(executor: Executor, id: string, subject: string, nowIso: string): Promise<boolean> {
    const result = await withTeams(executor)
      .updateTable("team_invitations")
      .set({ accepted_at: nowIso, accepted_by: subject })
      .where("id", "=", id)
      .where("accepted_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
