// Webhook signatures (spec "Delivery"): `sha256=` + the lowercase hex HMAC-SHA256 of the exact
// bytes sent, keyed by the endpoint's secret. The same scheme as GitHub's X-Hub-Signature-256, so
// receivers can reuse their verification code.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const SIGNATURE_PREFIX = "sha256=";
const SECRET_PREFIX = "whsec_";

export function signPayload(secret: string, body: string | Buffer): string {
  return SIGNATURE_PREFIX + createHmac("sha256", secret).update(body).digest("hex");
}

/** True when `header` is the signature of `body` under `secret`; compared in constant time. */
export function verifySignature(secret: string, body: string | Buffer, header: string | undefined): boolean {
  if (typeof header !== "string") return false;
  const expected = Buffer.from(signPayload(secret, body));
  const given = Buffer.from(header.trim().toLowerCase());
  // Lengths are public (always 71 bytes for a well-formed header); only the content is secret.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `whsec_` + 32 random bytes, base64url: 256 bits, the HMAC-SHA256 block-safe key size. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64url");
}
