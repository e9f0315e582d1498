import { Type } from "@sinclair/typebox";
import type { KeyInput } from "../../keys/key-input.js";
import { PERMISSIONS } from "../../keys/key-policy.js";
import type { KeysService } from "../../keys/keys.service.js";
import type { TeamsService } from "../../teams/teams.service.js";
import type { App } from "../app-types.js";
import { auditActorOf } from "../audit-actor.js";
import { principalOf } from "../auth.js";
import { notFound, validationError } from "../errors.js";
import { BEARER_SECURITY, Nullable, Timestamp } from "../schemas.js";

const PermissionSchema = Type.Union(
  PERMISSIONS.map((p) => Type.Literal(p)),
  { description: "One of the documented permissions (docs/widget.md)" },
);
const KeyTypeSchema = Type.Union([Type.Literal("secret"), Type.Literal("publishable")]);
const ModeSchema = Type.Union([Type.Literal("live"), Type.Literal("test")]);

const CreateKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  type: Type.Optional(
    Type.Union([Type.Literal("secret"), Type.Literal("publishable")], {
      description:
        "secret (sk_..., default): server-side use. publishable (pk_...): only the widget endpoint, from allowedOrigins.",
    }),
  ),
  mode: Type.Optional(
    Type.Union([Type.Literal("live"), Type.Literal("test")], {
      description: "test: scripted answers, no network, never charged (publishable keys in this release).",
    }),
  ),
  permissions: Type.Optional(
    Type.Array(Type.String({ maxLength: 40 }), {
      maxItems: 20,
      description: `Secret keys: what the key may do (${PERMISSIONS.join(", ")}). Omitted: every permission.`,
    }),
  ),
  allowedIps: Type.Optional(
    Type.Array(Type.String({ maxLength: 50 }), {
      minItems: 1,
      maxItems: 100,
      description: "Secret keys: IPv4/IPv6 addresses or CIDR blocks the key may be used from.",
    }),
  ),
  expiresAt: Type.Optional(
    Type.String({ maxLength: 40, description: "ISO 8601; refused with 401 after it." }),
  ),
  allowedOrigins: Type.Optional(
    Type.Array(Type.String({ maxLength: 255 }), {
      minItems: 1,
      maxItems: 50,
      description:
        "Publishable keys (required): https://www.example.com or one wildcard level https://*.example.com. Local origins only on test-mode keys.",
    }),
  ),
  widget: Type.Optional(
    Type.Object(
      {
        dailyCap: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })),
        perIpPerMinute: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
        perEmailPerMinute: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
        distinctEmailsPerIpPerDay: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
        captcha: Type.Optional(Type.Union([Type.Literal("turnstile"), Type.Literal("hcaptcha")])),
      },
      { additionalProperties: false, description: "Publishable keys: abuse limits and an optional CAPTCHA." },
    ),
  ),
});

const KeyFacts = {
  type: KeyTypeSchema,
  mode: ModeSchema,
  permissions: Nullable(Type.Array(PermissionSchema), "null: every permission"),
  allowedIps: Nullable(Type.Array(Type.String()), "null: any address"),
  allowedOrigins: Nullable(Type.Array(Type.String())),
  expiresAt: Nullable(Timestamp),
};

const CreatedKey = Type.Object({
  key_id: Type.String(),
  api_key: Type.String({ description: "Shown only in this response" }),
  name: Type.String(),
  description: Nullable(Type.String()),
  created_at: Timestamp,
  ...KeyFacts,
  message: Type.String(),
});

const KeySummary = Type.Object({
  key_id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  partial_key: Type.String(),
  api_key: Type.Optional(Type.String({ description: "Publishable keys only (they are public)" })),
  ...KeyFacts,
  created_at: Timestamp,
  last_used: Nullable(Timestamp),
  created_by: Nullable(
    Type.Object({
      memberId: Type.String(),
      subject: Type.String(),
      email: Nullable(Type.String()),
      current: Type.Boolean({ description: "false: the member has left; the key keeps working" }),
    }),
    "The team member who created the key; null for keys made before teams or by the CLI",
  ),
});

/** What these routes use (the app hands each route file only its own deps). */
export interface KeysRoutesDeps {
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
      if (outcome.kind === "invalid") throw validationError(outcome.errors);
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
          return {
            ...key,
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
