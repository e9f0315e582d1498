import { Type } from "@sinclair/typebox";
import type { Config } from "../../config/config.js";
import type { KeyInput } from "../../keys/key-input.js";
import { CreatedKey, CreateKeyBody, KeySummary } from "../../keys/keys.schemas.js";
import type { KeysService } from "../../keys/keys.service.js";
import { invalid, notFound } from "../../lib/errors.js";
import type { TeamsService } from "../../teams/teams.service.js";
import type { App } from "../app-types.js";
import { auditActorOf } from "../audit-actor.js";
import { principalOf } from "../auth.js";
import { BEARER_SECURITY } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface KeysRoutesDeps {
  config: Readonly<Config>;
  keys: KeysService;
  teams: TeamsService;
}

export async function keysRoutes(app: App, deps: KeysRoutesDeps): Promise<void> {
  const common = { tags: ["keys"], security: BEARER_SECURITY };
  const config = { auth: "identity" as const };

  app.post(
    "/v1/auth/keys",
    {
      config: { ...config, permission: "keys:write" },
      schema: {
        ...common,
        operationId: "createApiKey",
        summary: "Create an API key",
        description:
          "Creates an API key for the signed-in account. The key is returned only in this answer; only its hash is stored. Takes the identity JWT, not an API key.",
        body: CreateKeyBody,
        response: { 201: CreatedKey },
      },
    },
    async (request, reply) => {
      const { accountId, member } = principalOf(request);
      const { name, description, ...input } = request.body;
      const outcome = await deps.keys.createKey(
        accountId,
        name,
        description ?? null,
        input as KeyInput,
        auditActorOf(request),
        member?.memberId ?? null,
      );
      if (outcome.kind === "invalid") throw invalid(outcome.errors);
      return reply.status(201).send(outcome.key);
    },
  );

  app.get(
    "/v1/auth/keys",
    {
      config: { ...config, permission: "keys:write" },
      schema: {
        ...common,
        operationId: "listApiKeys",
        summary: "List API keys",
        description:
          "The account's API keys with their names, partial keys, type, mode, permissions, allowed IPs and origins, expiry, creation and last use; never a secret key itself (publishable keys, being public, are shown whole).",
        response: { 200: Type.Object({ keys: Type.Array(KeySummary) }) },
      },
    },
    async (request) => {
      const { accountId } = principalOf(request);
      const keys = await deps.keys.list(accountId);
      const creators = await deps.teams.describe(
        accountId,
        keys.flatMap((key) => (key.created_by ? [key.created_by] : [])),
      );
      return {
        keys: keys.map((key) => {
          const creator = key.created_by ? creators.get(key.created_by) : undefined;
          const { widget, ...rest } = key;
          return {
            ...rest,
            widget: widget
              ? { ...deps.config.widget.defaults, ...widget.limits, captcha: widget.captcha }
              : null,
            created_by: creator
              ? {
                  memberId: creator.memberId,
                  subject: creator.subject,
                  email: creator.email,
                  current: creator.current,
                }
              : null,
          };
        }),
      };
    },
  );

  app.delete(
    "/v1/auth/keys/:key_id",
    {
      config: { ...config, permission: "keys:write" },
      schema: {
        ...common,
        operationId: "revokeApiKey",
        summary: "Revoke an API key (permanent, effective on the next request)",
        description:
          "Revokes the key for good; requests with it are refused from the next request on. 404 for a key that is not the account's. Takes the identity JWT.",
        params: Type.Object({ key_id: Type.String({ maxLength: 100 }) }),
        response: {
          200: Type.Object({ message: Type.String(), key_id: Type.String() }),
          // With Redis, the revocation is shared through it first; unreachable: nothing revoked.
          503: { $ref: "ErrorResponse#" },
        },
      },
    },
    async (request) => {
      const revoked = await deps.keys.revoke(
        principalOf(request).accountId,
        request.params.key_id,
        auditActorOf(request),
      );
      if (!revoked) throw notFound("API key");
      return { message: "API key revoked", key_id: request.params.key_id };
    },
  );
}
