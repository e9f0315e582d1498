// Verifies the X-Webhook-Signature header of a delivery: `sha256=` + the lowercase hex
// HMAC-SHA256 of the raw request body, keyed by the endpoint's `whsec_` secret. Verify the exact
// bytes received, before parsing them: re-serialized JSON does not match.
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-webhook-signature";
const PREFIX = "sha256=";
const HEX_DIGEST = /^[0-9a-f]{64}$/;

/** True when `header` signs `rawBody` under `secret`. Compared in constant time. */
export function verifyWebhookSignature(
  secret: string,
  rawBody: string | Uint8Array,
  header: string | string[] | null | undefined,
): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value !== "string" || !secret) return false;
  const normalized = value.trim().toLowerCase();
  if (!normalized.startsWith(PREFIX)) return false;
  const givenHex = normalized.slice(PREFIX.length);
  if (!HEX_DIGEST.test(givenHex)) return false;
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  // Both are 32 bytes here, so timingSafeEqual never throws and only content is compared.
  return timingSafeEqual(Buffer.from(givenHex, "hex"), expected);
}

/** The header value the service would send for `rawBody`: for receivers' own tests. */
export function signWebhookPayload(secret: string, rawBody: string | Uint8Array): string {
  return PREFIX + createHmac("sha256", secret).update(rawBody).digest("hex");
}
