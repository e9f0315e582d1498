// The team, the audit log and the account's personal data (issue 25), one small class each like
// resources.ts: every method is one request. Team calls act as a person (a bearer token or the
// dashboard's session), audit and data calls also take an API key with audit:read / data:admin.
import type {
  AcceptedTeamInvitation,
  AccountExport,
  AccountExportStarted,
  AuditFilter,
  AuditPage,
  AuditQuery,
  AuditVerification,
  CreatedTeamInvitation,
  Erasure,
  PersonErasure,
  RetentionSettings,
  RetentionUpdate,
  TeamInvitationInput,
  TeamInvitationRevoked,
  TeamInvitations,
  TeamMember,
  TeamMemberRemoved,
  TeamMembers,
  TeamRole,
} from "./api-types.js";
import { type CallOptions, segment, type Transport } from "./transport.js";

export class TeamApi {
  constructor(private readonly http: Transport) {}

  /** The current members and their roles; `you` is the caller's member id. */
  members(call?: CallOptions): Promise<TeamMembers> {
    return this.http.json({ method: "GET", path: "/v1/team/members", auth: "identity" }, call);
  }

  /** Only an owner changes an owner or makes one; the last owner stays (409). */
  changeRole(memberId: string, role: TeamRole, call?: CallOptions): Promise<TeamMember> {
    const path = `/v1/team/members/${segment(memberId)}`;
    return this.http.json({ method: "PATCH", path, auth: "identity", body: { role } }, call);
  }

  remove(memberId: string, call?: CallOptions): Promise<TeamMemberRemoved> {
    const path = `/v1/team/members/${segment(memberId)}`;
    return this.http.json({ method: "DELETE", path, auth: "identity" }, call);
  }

  /** A single-use link valid 7 days, shown in this response only. */
  invite(input: TeamInvitationInput, call?: CallOptions): Promise<CreatedTeamInvitation> {
    return this.http.json(
      { method: "POST", path: "/v1/team/invitations", auth: "identity", body: input },
      call,
    );
  }

  invitations(call?: CallOptions): Promise<TeamInvitations> {
    return this.http.json({ method: "GET", path: "/v1/team/invitations", auth: "identity" }, call);
  }

  /** Withdraws a pending invitation: its link stops working. */
  revokeInvitation(invitationId: string, call?: CallOptions): Promise<TeamInvitationRevoked> {
    const path = `/v1/team/invitations/${segment(invitationId)}`;
    return this.http.json({ method: "DELETE", path, auth: "identity" }, call);
  }

  /** Accepts with the invitee's own identity (the invited email, verified by the provider). */
  accept(token: string, call?: CallOptions): Promise<AcceptedTeamInvitation> {
    const path = `/v1/team/invitations/${segment(token)}/accept`;
    return this.http.json({ method: "POST", path, auth: "identity" }, call);
  }
}

export class AuditApi {
  constructor(private readonly http: Transport) {}

  /** Entries newest first; pass `next_cursor` back as `cursor` for the next page. */
  list(query: AuditQuery = {}, call?: CallOptions): Promise<AuditPage> {
    return this.http.json({ method: "GET", path: "/v1/audit-log", query }, call);
  }

  /** Recomputes the chain; `first_broken` names the first entry that fails. */
  verify(call?: CallOptions): Promise<AuditVerification> {
    return this.http.json({ method: "GET", path: "/v1/audit-log/verify" }, call);
  }

  /** The filtered entries as CSV (formula cells neutralised). */
  exportCsv(query: AuditFilter = {}, call?: CallOptions): Promise<string> {
    return this.http.text({ method: "GET", path: "/v1/audit-log/export", query, accept: "text/csv" }, call);
  }
}

export class PrivacyApi {
  constructor(private readonly http: Transport) {}

  /** Erases one lead and every copy of its data; idempotent. */
  eraseLead(leadId: string, call?: CallOptions): Promise<Erasure> {
    return this.http.json({ method: "POST", path: `/v1/leads/${segment(leadId)}/erase` }, call);
  }

  /** Erases every lead with this mailbox (aliases folded); 404 when none has it. */
  erasePerson(email: string, call?: CallOptions): Promise<PersonErasure> {
    return this.http.json({ method: "POST", path: "/v1/leads/erase", body: { email } }, call);
  }

  retention(call?: CallOptions): Promise<RetentionSettings> {
    return this.http.json({ method: "GET", path: "/v1/settings/retention" }, call);
  }

  setRetention(update: RetentionUpdate, call?: CallOptions): Promise<RetentionSettings> {
    return this.http.json({ method: "PUT", path: "/v1/settings/retention", body: update }, call);
  }

  /** Starts building the account's archive (a job); follow it with `exportStatus`. */
  startExport(call?: CallOptions): Promise<AccountExportStarted> {
    return this.http.json({ method: "POST", path: "/v1/account/export" }, call);
  }

  exportStatus(exportId: string, call?: CallOptions): Promise<AccountExport> {
    return this.http.json({ method: "GET", path: `/v1/account/export/${segment(exportId)}` }, call);
  }
}
