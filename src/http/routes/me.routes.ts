// Who the caller is in the account it acts on (GET /v1/me): the account, how it signed in, its role
// and the permissions it holds there, and, for a person, every account they belong to. The
// dashboard hides what the caller cannot do from this answer; the server still refuses on its own.
import { Type } from "@sinclair/typebox";
import { PERMISSIONS } from "../../keys/key-policy.js";
import { Nullable } from "../../lib/schema.js";
import { ROLES } from "../../teams/roles.js";
import { RoleSchema } from "../../teams/teams.schemas.js";
import type { TeamsService } from "../../teams/teams.service.js";
import { permissionsOf } from "../../teams/teams.service.js";
import type { App } from "../app-types.js";
import { principalOf } from "../auth.js";
import { DATA_SECURITY } from "../schemas.js";

const Me = Type.Object({
  accountId: Type.String({ description: "The account this request acted on (X-Account-Id, or your own)" }),
  via: Type.Union([Type.Literal("api_key"), Type.Literal("jwt"), Type.Literal("session")], {
    description: "api_key: X-API-Key; jwt: a bearer token; session: the dashboard's sign-on cookie",
  }),
  role: Nullable(RoleSchema, "Your role in this account; null for an API key"),
  permissions: Type.Array(Type.String(), {
    description: `What you may do here: your role's permissions, or the key's (${PERMISSIONS.join(", ")}; members also keys:write, team:read, team:write, billing:write)`,
  }),
  member: Nullable(
    Type.Object({ id: Type.String(), subject: Type.String(), email: Nullable(Type.String()) }),
    "The team member you act as; null for an API key",
  ),
  key: Nullable(
    Type.Object({ id: Type.String(), type: Type.String(), mode: Type.String() }),
    "The API key you act with; null for a person",
  ),
  accounts: Type.Array(
    Type.Object({ accountId: Type.String(), role: RoleSchema, permissions: Type.Array(Type.String()) }),
    { description: "Every account you are a member of (send one as X-Account-Id); empty for an API key" },
  ),
});

/** What these routes use (the app hands each route file only its own deps). */
export interface MeRoutesDeps {
  teams: TeamsService;
}

export async function meRoutes(app: App, deps: MeRoutesDeps): Promise<void> {
  app.get(
    "/v1/me",
    {
      config: { auth: "data", permission: "authenticated" },
      schema: {
        tags: ["team"],
        security: DATA_SECURITY,
        operationId: "getMe",
        summary: "Who you are here: account, role, permissions, and your other accounts",
        description:
          "For a person (bearer token or dashboard session): the role and its permissions in the account X-Account-Id names, and every account they belong to. For an API key: the key's permissions.",
        response: { 200: Me },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const via: "session" | "jwt" | "api_key" =
        principal.via === "session" ? "session" : principal.via === "jwt" ? "jwt" : "api_key";
      if (!principal.member || !principal.identity) {
        const policy = principal.policy;
        return {
          accountId: principal.accountId,
          via,
          role: null,
          permissions: [...(policy?.permissions ?? PERMISSIONS)].sort(),
          member: null,
          key: principal.keyId
            ? { id: principal.keyId, type: policy?.type ?? "secret", mode: policy?.mode ?? "live" }
            : null,
          accounts: [],
        };
      }
      const { identity, member } = principal;
      // The identity's own account is theirs to open even before its first request made them its owner.
      await deps.teams.membership(identity.accountId, identity.accountId, identity.email);
      const accounts = await deps.teams.memberships(identity.accountId);
      return {
        accountId: principal.accountId,
        via,
        role: member.role,
        permissions: permissionsOf(member.role),
        member: { id: member.memberId, subject: identity.accountId, email: identity.email },
        key: null,
        accounts: accounts
          .map(({ accountId, role, permissions }) => ({ accountId, role, permissions }))
          .sort(
            (a, b) => ROLES.indexOf(a.role) - ROLES.indexOf(b.role) || a.accountId.localeCompare(b.accountId),
          ),
      };
    },
  );
}
