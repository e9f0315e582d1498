// Team members and invitations (issue 25). Bearer tokens only: members are people. Each route
// declares its permission; the role matrix (src/teams/roles.ts) decides who holds it.
import { Type } from "@sinclair/typebox";
import type { Config } from "../../config/config.js";
import {
  AcceptedInvitation,
  CreatedInvitation,
  InvitationBody,
  InvitationIdParams,
  InvitationParams,
  InvitationSchema,
  MemberParams,
  MemberSchema,
  RoleBody,
} from "../../teams/teams.schemas.js";
import type { Member, TeamsService } from "../../teams/teams.service.js";
import type { App } from "../app-types.js";
import { auditActorOf } from "../audit-actor.js";
import { principalOf } from "../auth.js";
import { AppError } from "../errors.js";
import { publicBaseUrl } from "../openapi-meta.js";
import { BEARER_SECURITY } from "../schemas.js";

const wireMember = (m: Member) => ({
  id: m.memberId,
  subject: m.subject,
  email: m.email,
  role: m.role,
  joinedAt: m.joinedAt,
});

function actorOf(request: Parameters<typeof principalOf>[0]) {
  const principal = principalOf(request);
  if (!principal.member) throw new AppError("FORBIDDEN", "Team endpoints take an identity token");
  return { accountId: principal.accountId, actor: { ...principal.member, audit: auditActorOf(request) } };
}

/** What these routes use (the app hands each route file only its own deps). */
export interface TeamRoutesDeps {
  config: Readonly<Config>;
  teams: TeamsService;
}

export async function teamRoutes(app: App, deps: TeamRoutesDeps): Promise<void> {
  const common = { tags: ["team"], security: BEARER_SECURITY };
  const config = { auth: "identity" as const };
  const teams = deps.teams;

  app.get(
    "/v1/team/members",
    {
      config: { ...config, permission: "team:read" },
      schema: {
        ...common,
        operationId: "listTeamMembers",
        summary: "List the account's members and their roles",
        description: "The current members of the account X-Account-Id names (the caller's own without it).",
        response: { 200: Type.Object({ members: Type.Array(MemberSchema), you: Type.String() }) },
      },
    },
    async (request) => {
      const { accountId, actor } = actorOf(request);
      return { members: (await teams.list(accountId)).map(wireMember), you: actor.memberId };
    },
  );

  app.patch(
    "/v1/team/members/:memberId",
    {
      config: { ...config, permission: "team:write" },
      schema: {
        ...common,
        operationId: "changeTeamMemberRole",
        summary: "Change a member's role",
        description:
          "Only an owner changes an owner or makes one. The last owner cannot be demoted (409 CONFLICT, details.reason last_owner).",
        params: MemberParams,
        body: RoleBody,
        response: { 200: MemberSchema, 409: { $ref: "ErrorResponse#" } },
      },
    },
    async (request) => {
      const { accountId, actor } = actorOf(request);
      return wireMember(await teams.changeRole(accountId, actor, request.params.memberId, request.body.role));
    },
  );

  app.delete(
    "/v1/team/members/:memberId",
    {
      config: { ...config, permission: "team:write" },
      schema: {
        ...common,
        operationId: "removeTeamMember",
        summary: "Remove a member (their sessions stop opening this account)",
        description:
          "The member's tokens and dashboard sessions are refused for this account from their next request. Keys they created keep working. The last owner cannot be removed (409).",
        params: MemberParams,
        response: {
          200: Type.Object({ message: Type.String(), memberId: Type.String() }),
          409: { $ref: "ErrorResponse#" },
        },
      },
    },
    async (request) => {
      const { accountId, actor } = actorOf(request);
      const { memberId } = await teams.remove(accountId, actor, request.params.memberId);
      return { message: "Member removed", memberId };
    },
  );

  app.post(
    "/v1/team/invitations",
    {
      config: { ...config, permission: "team:write" },
      schema: {
        ...common,
        operationId: "inviteTeamMember",
        summary: "Invite someone by email (a single-use link valid 7 days)",
        description:
          "Only an identity whose token carries this email with email_verified true can accept. Only an owner invites an owner.",
        body: InvitationBody,
        response: { 201: CreatedInvitation },
      },
    },
    async (request, reply) => {
      const { accountId, actor } = actorOf(request);
      const { invitation, token } = await teams.invite(
        accountId,
        actor,
        request.body.email,
        request.body.role,
      );
      const url = `${publicBaseUrl(deps.config)}/dashboard/#invitation=${token}`;
      return reply.status(201).send({ ...invitation, token, url });
    },
  );

  app.get(
    "/v1/team/invitations",
    {
      config: { ...config, permission: "team:read" },
      schema: {
        ...common,
        operationId: "listTeamInvitations",
        summary: "Pending invitations (not accepted, not expired)",
        description: "Invitations still waiting for their invitee; their links are never shown again.",
        response: { 200: Type.Object({ invitations: Type.Array(InvitationSchema) }) },
      },
    },
    async (request) => ({ invitations: await teams.pendingInvitations(actorOf(request).accountId) }),
  );

  app.delete(
    "/v1/team/invitations/:invitationId",
    {
      config: { ...config, permission: "team:write" },
      schema: {
        ...common,
        operationId: "revokeTeamInvitation",
        summary: "Withdraw a pending invitation (its link stops working)",
        description:
          "Only an invitation not yet accepted can be withdrawn; an accepted, withdrawn or unknown one is 404. Only an owner withdraws an invitation to the owner role. Audited.",
        params: InvitationIdParams,
        response: { 200: Type.Object({ message: Type.String(), invitationId: Type.String() }) },
      },
    },
    async (request) => {
      const { accountId, actor } = actorOf(request);
      const invitation = await teams.revokeInvitation(accountId, actor, request.params.invitationId);
      return { message: "Invitation withdrawn", invitationId: invitation.id };
    },
  );

  app.post(
    "/v1/team/invitations/:token/accept",
    {
      config: { ...config, permission: "identity" },
      schema: {
        ...common,
        operationId: "acceptTeamInvitation",
        summary: "Accept an invitation with the invitee's own identity token",
        description:
          "Accepted once, within 7 days, by an identity whose token carries the invited email with email_verified true (else 403). A used or expired link is 409 with details.reason (used, expired).",
        params: InvitationParams,
        response: { 200: AcceptedInvitation, 409: { $ref: "ErrorResponse#" } },
      },
    },
    async (request) => {
      const identity = principalOf(request).identity;
      if (!identity) throw new AppError("FORBIDDEN", "Accept an invitation with your identity token");
      const accepted = await teams.accept(request.params.token, {
        subject: identity.accountId,
        email: identity.email,
        emailVerified: identity.emailVerified,
      });
      return { accountId: accepted.accountId, member: wireMember(accepted.member) };
    },
  );
}
