// Wire shapes of the audit log.
import { Type } from "@sinclair/typebox";
import { Defaulted, Nullable, Timestamp } from "../lib/schema.js";

const ActorKind = Type.Union([
  Type.Literal("member"),
  Type.Literal("key"),
  Type.Literal("admin"),
  Type.Literal("system"),
]);

const AuditEntry = Type.Object({
  id: Type.String(),
  seq: Type.Integer({ description: "Position in the account's chain: 1, 2, 3, ..." }),
  actor: Type.Object({ kind: ActorKind, id: Type.String() }),
  action: Type.String({ description: "e.g. key.created, webhook.secret_rotated, lead.erased" }),
  target: Type.Object({ kind: Type.String(), id: Type.String() }),
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  details: Type.Record(Type.String(), Type.Unknown()),
  created_at: Timestamp,
  prev_hash: Type.String({ description: "The previous entry's hash (64 zeros for the first)" }),
  hash: Type.String({ description: "SHA-256 over this entry's fields and prev_hash" }),
});

export const AuditFilterQuery = Type.Object({
  action: Type.Optional(Type.String({ maxLength: 100 })),
  actor: Type.Optional(
    Type.String({
      maxLength: 100,
      description: "Actor id (a key id key_..., a member id mem_..., admin, or a system job)",
    }),
  ),
  actor_kind: Type.Optional(ActorKind),
  target: Type.Optional(Type.String({ maxLength: 100, description: "Target id" })),
  from: Type.Optional(Type.String({ format: "date-time", description: "Entries at or after this time" })),
  to: Type.Optional(Type.String({ format: "date-time", description: "Entries before this time" })),
});

export const AuditListQuery = Type.Composite([
  AuditFilterQuery,
  Type.Object({
    limit: Defaulted(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 100, description: "next_cursor of the previous page" })),
  }),
]);

export const AuditPage = Type.Object({
  entries: Type.Array(AuditEntry),
  next_cursor: Nullable(Type.String(), "Pass as cursor for older entries; null on the last page"),
});

export const ChainVerification = Type.Object({
  valid: Type.Boolean(),
  checked: Type.Integer({ description: "Entries whose hash and link were recomputed" }),
  head_seq: Type.Integer(),
  first_broken: Nullable(
    Type.Object({ id: Nullable(Type.String()), seq: Type.Integer(), reason: Type.String() }),
    "The first entry that fails verification; null when the chain holds",
  ),
});
