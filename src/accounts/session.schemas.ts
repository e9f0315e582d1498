// Wire shapes of the dashboard session: a sign-in token in, a session token out.
import { Type } from "@sinclair/typebox";
import { Timestamp } from "../lib/schema.js";
export const SessionBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 4096, description: "The sign-in token of a sign-in link" }),
});

export const Session = Type.Object({
  token: Type.String({ description: "Session token: send it as `Authorization: Bearer <token>`" }),
  token_type: Type.Literal("Bearer"),
  account_id: Type.String(),
  expires_at: Timestamp,
});
