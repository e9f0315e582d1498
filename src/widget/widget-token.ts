// The verdict token a visitor's form carries to its backend: HMAC-SHA256 over a small JSON payload,
// bound to the address (by hash: the token never carries the address itself) and to the
// publishable key that asked, valid 15 minutes. The backend's secret key confirms it with
// POST /v1/widget/confirm; forged, expired and mismatched tokens are told apart.
import { createHash, hash, timingSafeEqual } from "node:crypto";
import type { WidgetVerdict } from "./widget-verdict.js";

const VERSION = "lcw1";

export interface TokenClaims {
  /** Publishable key id. */
  keyId: string;
  accountId: string;
  /** sha256 of the lower-cased address, hex. */
  emailHash: string;
  /** Expiry, ms since the epoch. */
  expiresAtMs: number;
  /** When the visitor saw the verdict. */
  checkedAt: string;
  mode: "live" | "test";
  verdict: WidgetVerdict;
}

export type TokenReading =
  | { kind: "valid"; claims: TokenClaims }
  | { kind: "forged" }
  | { kind: "expired"; expiredAt: string };

/** One-shot `hash` (a third of createHash's cost for a short input). */
export const emailHashOf = (email: string) => hash("sha256", email.trim().toLowerCase(), "hex");

/**
 * HMAC-SHA256 (RFC 2104) with the key's inner and outer pads worked out once per secret, and each
 * token's two hashes taken one-shot (`hash`): the same MAC as createHmac, without a native hash
 * object per step (a unit test compares them).
 */
function keyedMac(secret: string): (body: string) => string {
  const BLOCK = 64;
  let key = Buffer.from(secret, "utf8");
  if (key.length > BLOCK) key = createHash("sha256").update(key).digest();
  const padded = Buffer.alloc(BLOCK);
  key.copy(padded);
  const innerPad = Buffer.from(padded.map((byte) => byte ^ 0x36));
  // The outer hash's input: its pad, then the inner digest (32 bytes) written per token.
  const outerInput = Buffer.alloc(BLOCK + 32);
  padded
    .map((byte) => byte ^ 0x5c)
    .forEach((byte, i) => {
      outerInput[i] = byte;
    });
  return (body) => {
    const inner = hash("sha256", Buffer.concat([innerPad, Buffer.from(body, "utf8")]), "buffer");
    inner.copy(outerInput, BLOCK);
    return hash("sha256", outerInput, "base64url");
  };
}

const macs = new Map<string, (body: string) => string>();

function mac(secret: string, body: string): string {
  let keyed = macs.get(secret);
  if (!keyed) {
    keyed = keyedMac(secret);
    macs.set(secret, keyed);
  }
  return keyed(body);
}

export function signToken(secret: string, claims: TokenClaims): string {
  const body = `${VERSION}.${Buffer.from(JSON.stringify(claims), "utf8").toString("base64url")}`;
  return `${body}.${mac(secret, body)}`;
}

/** The claims of a token this service signed, judged against `nowMs`. */
export function readToken(secret: string, token: string, nowMs: number): TokenReading {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION) return { kind: "forged" };
  const body = `${parts[0]}.${parts[1]}`;
  const given = Buffer.from(parts[2]!, "base64url");
  const expected = Buffer.from(mac(secret, body), "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { kind: "forged" };
  let claims: TokenClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as TokenClaims;
  } catch {
    return { kind: "forged" };
  }
  if (!(claims.expiresAtMs > nowMs))
    return { kind: "expired", expiredAt: new Date(claims.expiresAtMs).toISOString() };
  return { kind: "valid", claims };
}
