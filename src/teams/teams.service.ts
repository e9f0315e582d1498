// Team rules: who is a member of which account with which role, invitations bound to an email,
// and the two invariants no caller can break: an account always keeps an owner, and only an
// owner touches owners. A method returns its success; a refusal is thrown as the domain's failure
// (ADR 0075): not_found, conflict (last owner, used, expired, already a member), not_permitted
// (only an owner touches owners) and wrong_identity (an invitation for another email). No SQL, no HTTP.
import { createHash, randomBytes } from "node:crypto";
import type { AuditActor, AuditTrail } from "../audit/audit.service.js";
import type { Clock } from "../lib/clock.js";
import { conflict, type DomainError, fail, notFound } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { Db } from "../storage/db.js";
import { isRole, ROLE_PERMISSIONS, type Role, type RolePermission } from "./roles.js";
import type { InTransaction, InvitationRow, MemberRow, TeamsRepo } from "./teams.repo.js";

const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

export interface Member {
  memberId: string;
  subject: string;
  email: string | null;
  role: Role;
  joinedAt: string;
}

/** Who acts: the member behind a bearer request, and (when the change is audited) from where. */
export interface Actor {
  memberId: string;
  role: Role;
  audit?: AuditActor;
}

/** An account an identity belongs to, with its role and what the role allows there. */
export interface Membership {
  accountId: string;
  memberId: string;
  role: Role;
  permissions: RolePermission[];
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  expiresAt: string;
  createdAt: string;
}

/** The identity presenting a token: its subject and the email claims the provider vouched for. */
export interface Invitee {
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

export type MembershipOutcome = { kind: "member"; member: Member } | { kind: "not_member" };

const ownerOnly = (): DomainError =>
  fail({
    kind: "not_permitted",
    message: "Only an owner can change owners or make one",
    details: { required: "team:write", requiredRole: "owner" },
  });
const lastOwner = (): DomainError =>
  conflict("An account keeps at least one owner: make another member owner first", { reason: "last_owner" });
const used = (): DomainError => conflict("This invitation has already been used", { reason: "used" });
const alreadyMember = (): DomainError =>
  conflict("You are already a member of this account", { reason: "already_member" });

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

function memberOf(row: MemberRow): Member {
  return {
    memberId: row.id,
    subject: row.subject,
    email: row.email,
    role: isRole(row.role) ? row.role : "analyst",
    joinedAt: row.created_at,
  };
}

function invitationOf(row: InvitationRow): Invitation {
  return {
    id: row.id,
    email: row.email,
    role: isRole(row.role) ? row.role : "analyst",
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  };
}

export const permissionsOf = (role: Role): RolePermission[] => [...ROLE_PERMISSIONS[role]].sort();

export class TeamsService {
  constructor(
    private readonly db: Db,
    private readonly repo: TeamsRepo,
    private readonly clock: Clock,
    /** Where invitations and member changes are recorded, in the change's transaction. */
    private readonly audit?: AuditTrail,
  ) {}

  /** An audit entry written in the change's transaction, when the actor says who made it. */
  private recorder(
    accountId: string,
    actor: Actor,
    action: string,
    target: { kind: string; id: string },
    details: Record<string, unknown>,
  ): InTransaction | undefined {
    const { audit } = this;
    const who = actor.audit;
    if (!audit || !who) return undefined;
    return (trx) => audit.record(trx, accountId, { actor: who, action, target, details });
  }

  /** Every account the subject is a current member of (the dashboard's account switcher). */
  async memberships(subject: string): Promise<Membership[]> {
    return (await this.repo.listMemberships(this.db, subject)).map((row) => {
      const role = isRole(row.role) ? row.role : "analyst";
      return { accountId: row.account_id, memberId: row.id, role, permissions: permissionsOf(role) };
    });
  }

  /**
   * The subject's membership of the account. An account's own identity (account id = subject)
   * becomes its owner when the account has no members yet (an account created after migration
   * 0060); once it has members, only a current row counts, so a removed owner stays removed.
   */
  async membership(accountId: string, subject: string, email: string | null): Promise<MembershipOutcome> {
    const row = await this.repo.findCurrentMember(this.db, accountId, subject);
    if (row) return { kind: "member", member: memberOf(row) };
    if (accountId !== subject || (await this.repo.hasAnyMember(this.db, accountId)))
      return { kind: "not_member" };
    const now = this.clock.now().toISOString();
    await this.repo.insertMemberOnce(this.db, {
      id: newId("mem", this.clock.now().getTime()),
      account_id: accountId,
      subject,
      email,
      role: "owner",
      created_at: now,
      updated_at: now,
      removed_at: null,
    });
    const created = await this.repo.findCurrentMember(this.db, accountId, subject);
    return created ? { kind: "member", member: memberOf(created) } : { kind: "not_member" };
  }

  async list(accountId: string): Promise<Member[]> {
    return (await this.repo.listCurrentMembers(this.db, accountId)).map(memberOf);
  }

  /** Members by id, removed ones included, with whether each is still current. */
  async describe(accountId: string, ids: string[]): Promise<Map<string, Member & { current: boolean }>> {
    const rows = await this.repo.listMembersById(this.db, accountId, [...new Set(ids)]);
    return new Map(rows.map((row) => [row.id, { ...memberOf(row), current: row.removed_at === null }]));
  }

  async changeRole(accountId: string, actor: Actor, memberId: string, role: Role): Promise<Member> {
    const target = await this.repo.findMemberById(this.db, accountId, memberId);
    if (!target || target.removed_at !== null) throw notFound("Member");
    if (actor.role !== "owner" && (target.role === "owner" || role === "owner")) throw ownerOnly();
    const result = await this.repo.changeMember(
      this.db,
      accountId,
      memberId,
      { role },
      this.clock.now().toISOString(),
      this.recorder(
        accountId,
        actor,
        "member.role_changed",
        { kind: "member", id: memberId },
        {
          email: target.email,
          from: target.role,
          to: role,
        },
      ),
    );
    if (result === "missing") throw notFound("Member");
    if (result === "last_owner") throw lastOwner();
    return { ...memberOf(target), role };
  }

  /**
   * Removes a member (themselves included). Their bearer tokens and dashboard sessions stop
   * opening this account on their next request: every request re-reads the membership.
   */
  async remove(accountId: string, actor: Actor, memberId: string): Promise<{ memberId: string }> {
    const target = await this.repo.findMemberById(this.db, accountId, memberId);
    if (!target || target.removed_at !== null) throw notFound("Member");
    if (actor.role !== "owner" && target.role === "owner") throw ownerOnly();
    const now = this.clock.now().toISOString();
    const result = await this.repo.changeMember(
      this.db,
      accountId,
      memberId,
      { removedAt: now },
      now,
      this.recorder(
        accountId,
        actor,
        "member.removed",
        { kind: "member", id: memberId },
        {
          email: target.email,
          role: target.role,
        },
      ),
    );
    if (result === "missing") throw notFound("Member");
    if (result === "last_owner") throw lastOwner();
    return { memberId };
  }

  async invite(
    accountId: string,
    actor: Actor,
    email: string,
    role: Role,
  ): Promise<{ invitation: Invitation; token: string }> {
    if (role === "owner" && actor.role !== "owner") throw ownerOnly();
    const now = this.clock.now();
    const token = `inv_${randomBytes(32).toString("base64url")}`;
    const row: InvitationRow = {
      id: newId("inv", now.getTime()),
      account_id: accountId,
      email: email.trim().toLowerCase(),
      role,
      token_hash: hashToken(token),
      invited_by: actor.memberId,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
      accepted_at: null,
      accepted_by: null,
    };
    await this.repo.insertInvitation(
      this.db,
      row,
      this.recorder(
        accountId,
        actor,
        "member.invited",
        { kind: "invitation", id: row.id },
        { email: row.email, role },
      ),
    );
    return { invitation: invitationOf(row), token };
  }

  /** Withdraws an invitation not yet accepted: its link stops working. Only an owner withdraws an owner's. */
  async revokeInvitation(accountId: string, actor: Actor, invitationId: string): Promise<Invitation> {
    const row = await this.repo.findInvitationById(this.db, accountId, invitationId);
    if (!row || row.accepted_at !== null) throw notFound("Invitation");
    if (row.role === "owner" && actor.role !== "owner") throw ownerOnly();
    const invitation = invitationOf(row);
    const deleted = await this.repo.deletePendingInvitation(
      this.db,
      accountId,
      invitationId,
      this.recorder(
        accountId,
        actor,
        "member.invitation_revoked",
        { kind: "invitation", id: invitationId },
        {
          email: row.email,
          role: invitation.role,
        },
      ),
    );
    if (!deleted) throw notFound("Invitation");
    return invitation;
  }

  async pendingInvitations(accountId: string): Promise<Invitation[]> {
    return (await this.repo.listPendingInvitations(this.db, accountId, this.clock.now().toISOString())).map(
      invitationOf,
    );
  }

  /** Accepts once, before expiry, only for an identity whose provider verified the invited email. */
  async accept(token: string, invitee: Invitee): Promise<{ accountId: string; member: Member }> {
    const row = await this.repo.findInvitationByHash(this.db, hashToken(token));
    if (!row) throw notFound("Invitation");
    if (row.accepted_at !== null) throw used();
    const now = this.clock.now().toISOString();
    if (row.expires_at <= now)
      throw conflict(`This invitation expired at ${row.expires_at}`, {
        reason: "expired",
        expiredAt: row.expires_at,
      });
    if (!invitee.emailVerified || invitee.email?.trim().toLowerCase() !== row.email)
      throw fail({
        kind: "wrong_identity",
        message:
          "This invitation is for another email: sign in with the invited address, verified by your identity provider",
        details: { reason: "email_mismatch" },
      });
    if (await this.repo.findCurrentMember(this.db, row.account_id, invitee.subject)) throw alreadyMember();
    if (!(await this.repo.markAccepted(this.db, row.id, invitee.subject, now))) throw used();
    const member: MemberRow = {
      id: newId("mem", this.clock.now().getTime()),
      account_id: row.account_id,
      subject: invitee.subject,
      email: row.email,
      role: row.role,
      created_at: now,
      updated_at: now,
      removed_at: null,
    };
    if (!(await this.repo.insertMemberOnce(this.db, member))) {
      if (await this.repo.findCurrentMember(this.db, row.account_id, invitee.subject)) throw alreadyMember();
    }
    return { accountId: row.account_id, member: memberOf(member) };
  }
}
