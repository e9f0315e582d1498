// Wire shapes of the team endpoints (camelCase, like the round-2 resources).
import { Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "../lib/schema.js";
import { ROLES } from "./roles.js";

export const RoleSchema = Type.Unsafe<(typeof ROLES)[number]>({
  type: "string",
  enum: [...ROLES],
  description:
    "owner: everything; admin: all but billing and owners; developer: keys, webhooks, connections, leads, checks, batches; analyst: reads and exports leads, batches and usage, runs checks",
});

export const MemberSchema = Type.Object({
  id: Type.String({ description: "mem_..." }),
  subject: Type.String({ description: "The identity provider's subject (sub claim)" }),
  email: Nullable(Type.String()),
  role: RoleSchema,
  joinedAt: Timestamp,
});

export const MemberParams = Type.Object({ memberId: Type.String({ minLength: 1, maxLength: 200 }) });

export const RoleBody = Type.Object({ role: RoleSchema }, { additionalProperties: false });

export const InvitationBody = Type.Object(
  {
    email: Type.String({
      pattern: "^[^@\\s]+@[^@\\s]+$",
      maxLength: 254,
      description: "The address the invitee's identity provider must vouch for (email_verified)",
    }),
    role: RoleSchema,
  },
  { additionalProperties: false },
);

export const InvitationSchema = Type.Object({
  id: Type.String({ description: "inv_..." }),
  email: Type.String(),
  role: RoleSchema,
  createdAt: Timestamp,
  expiresAt: Timestamp,
});

export const CreatedInvitation = Type.Object({
  ...InvitationSchema.properties,
  token: Type.String({ description: "Shown only in this response; only its hash is stored" }),
  url: Type.String({ description: "The single-use link to send to the invitee (valid 7 days)" }),
});

export const InvitationIdParams = Type.Object({
  invitationId: Type.String({ minLength: 1, maxLength: 200, description: "inv_..." }),
});

export const InvitationParams = Type.Object({ token: Type.String({ minLength: 10, maxLength: 200 }) });

export const AcceptedInvitation = Type.Object({
  accountId: Type.String({ description: "Send it as X-Account-Id to act in this account" }),
  member: MemberSchema,
});
