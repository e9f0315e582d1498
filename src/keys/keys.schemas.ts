// Wire shapes of the key endpoints: the create body, the created key (its secret shown once) and
// the listed summary.
import { Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "../lib/schema.js";
import { PERMISSIONS } from "./key-policy.js";

const PermissionSchema = Type.Union(
  PERMISSIONS.map((p) => Type.Literal(p)),
  { description: "One of the documented permissions (docs/widget.md)" },
);

const KeyTypeSchema = Type.Union([Type.Literal("secret"), Type.Literal("publishable")]);

const ModeSchema = Type.Union([Type.Literal("live"), Type.Literal("test")]);

export const CreateKeyBody = Type.Object({
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

export const CreatedKey = Type.Object({
  key_id: Type.String(),
  api_key: Type.String({ description: "Shown only in this response" }),
  name: Type.String(),
  description: Nullable(Type.String()),
  created_at: Timestamp,
  ...KeyFacts,
  message: Type.String(),
});

export const KeySummary = Type.Object({
  key_id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  partial_key: Type.String(),
  api_key: Type.Optional(Type.String({ description: "Publishable keys only (they are public)" })),
  ...KeyFacts,
  created_at: Timestamp,
  last_used: Nullable(Timestamp),
  widget: Nullable(
    Type.Object({
      dailyCap: Type.Integer({ description: "Distinct emails charged per UTC day" }),
      perIpPerMinute: Type.Integer({ description: "Checks per minute from one visitor IP" }),
      perEmailPerMinute: Type.Integer({ description: "Checks per minute of one address" }),
      distinctEmailsPerIpPerDay: Type.Integer({
        description: "Distinct emails one IP may check per UTC day",
      }),
      captcha: Nullable(Type.Union([Type.Literal("turnstile"), Type.Literal("hcaptcha")])),
    }),
    "Publishable keys: the abuse limits in force (the key's own, else the server's WIDGET_* defaults) and the CAPTCHA it requires; null for secret keys",
  ),
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
