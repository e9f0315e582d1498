import { Type } from "@sinclair/typebox";
import type { App, AppDeps } from "../app-types.js";
import { auditActorOf } from "../audit-actor.js";
import { principalOf } from "../auth.js";
import { notFound } from "../errors.js";
import { BEARER_SECURITY, Nullable, Timestamp } from "../schemas.js";

const CreateKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
});

const CreatedKey = Type.Object({
  key_id: Type.String(),
  api_key: Type.String({ description: "Shown only in this response" }),
  name: Type.String(),
  description: Nullable(Type.String()),
  created_at: Timestamp,
  message: Type.String(),
});

const KeySummary = Type.Object({
  key_id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  partial_key: Type.String(),
  created_at: Timestamp,
  last_used: Nullable(Timestamp),
});

export async function keysRoutes(app: App, deps: AppDeps): Promise<void> {
  const common = { tags: ["keys"], security: BEARER_SECURITY };
  const config = { auth: "identity" as const };

  app.post(
    "/v1/auth/keys",
    {
      config,
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
      const { accountId } = principalOf(request);
      const created = await deps.keys.create(
        accountId,
        request.body.name,
        request.body.description ?? null,
        auditActorOf(request),
      );
      return reply.status(201).send(created);
    },
  );

  app.get(
    "/v1/auth/keys",
    {
      config,
      schema: {
        ...common,
        operationId: "listApiKeys",
        summary: "List API keys",
        description:
          "The account's API keys with their names, partial keys, creation and last use; never the keys themselves. Takes the identity JWT.",
        response: { 200: Type.Object({ keys: Type.Array(KeySummary) }) },
      },
    },
    async (request) => ({ keys: await deps.keys.list(principalOf(request).accountId) }),
  );

  app.delete(
    "/v1/auth/keys/:key_id",
    {
      config,
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
