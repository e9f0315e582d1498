// Identity tokens with email claims, and a helper that brings a person into a team the way a user
// would: an owner invites the address, the invitee accepts with their own token.
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { type Harness, TEST_JWT_SECRET } from "../support/harness.js";

export async function identityToken(
  subject: string,
  email: string | null = `${subject}@example.test`,
  emailVerified = true,
): Promise<string> {
  return new SignJWT(email === null ? {} : { email, email_verified: emailVerified })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}

export const bearer = async (subject: string, accountId?: string): Promise<Record<string, string>> => ({
  authorization: `Bearer ${await identityToken(subject)}`,
  ...(accountId ? { "x-account-id": accountId } : {}),
});

/** Invites `subject` (at subject@example.test) into the account as `role`; returns the member id. */
export async function join(h: Harness, accountId: string, inviter: string, subject: string, role: string) {
  const invited = await h.app.inject({
    method: "POST",
    url: "/v1/team/invitations",
    headers: await bearer(inviter, accountId),
    payload: { email: `${subject}@example.test`, role },
  });
  assert.equal(invited.statusCode, 201, invited.body);
  const accepted = await h.app.inject({
    method: "POST",
    url: `/v1/team/invitations/${invited.json().token}/accept`,
    headers: await bearer(subject),
  });
  assert.equal(accepted.statusCode, 200, accepted.body);
  return accepted.json().member.id as string;
}
