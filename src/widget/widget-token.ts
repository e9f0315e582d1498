// The verdict token a visitor's form carries to its backend: HMAC-SHA256 over its claims, bound to
// the address (by hash: the token never carries the address itself) and to the publishable key
// that asked, valid 15 minutes. The backend's secret key confirms it with POST /v1/widget/confirm;
// forged, expired and mismatched tokens are told apart.
//
// Two formats, `version.payload.mac` with the MAC over `version.payload` (ADR 0057):
//   lcw2 (signed now): the claims in a few bytes (below), about half as long and a fraction of the
//        cost of JSON;
//   lcw1 (read only):  the claims as JSON. Tokens signed before lcw2 live 15 minutes, so reading
//        lcw1 keeps every token issued before a deploy confirmable for its whole life.
import { createHash, hash, timingSafeEqual } from "node:crypto";
import type { WidgetVerdict } from "./widget-verdict.js";

const JSON_VERSION = "lcw1";
const BINARY_VERSION = "lcw2";

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
  // The inner hash's input: its pad, then the body, written in place (a body that might not fit,
  // at three bytes a character, takes a buffer of its own).
  const innerInput = Buffer.alloc(BLOCK + 1024);
  innerPad.copy(innerInput);
  return (body) => {
    let input: Buffer;
    if (body.length * 3 <= innerInput.length - BLOCK)
      input = innerInput.subarray(0, BLOCK + innerInput.write(body, BLOCK, "utf8"));
    else input = Buffer.concat([innerPad, Buffer.from(body, "utf8")]);
    const inner = hash("sha256", input, "buffer");
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

/** The claims signToken signs: checkedAt as ms (read back as its ISO string). */
export interface ClaimsToSign extends Omit<TokenClaims, "checkedAt"> {
  checkedAtMs: number;
}

export function signToken(secret: string, claims: ClaimsToSign): string {
  const body = `${BINARY_VERSION}.${encodeClaims(claims).toString("base64url")}`;
  return `${body}.${mac(secret, body)}`;
}

/** The lcw1 token of the same claims (signed before lcw2; kept for tests of reading it). */
export function signJsonToken(secret: string, claims: TokenClaims): string {
  const body = `${JSON_VERSION}.${Buffer.from(JSON.stringify(claims), "utf8").toString("base64url")}`;
  return `${body}.${mac(secret, body)}`;
}

/** The claims of a token this service signed, judged against `nowMs`. */
export function readToken(secret: string, token: string, nowMs: number): TokenReading {
  const parts = token.split(".");
  if (parts.length !== 3 || (parts[0] !== BINARY_VERSION && parts[0] !== JSON_VERSION))
    return { kind: "forged" };
  const body = `${parts[0]}.${parts[1]}`;
  const given = Buffer.from(parts[2]!, "base64url");
  const expected = Buffer.from(mac(secret, body), "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { kind: "forged" };
  const payload = Buffer.from(parts[1]!, "base64url");
  const claims = parts[0] === BINARY_VERSION ? decodeClaims(payload) : parseJsonClaims(payload);
  if (claims === undefined) return { kind: "forged" };
  if (!(claims.expiresAtMs > nowMs))
    return { kind: "expired", expiredAt: new Date(claims.expiresAtMs).toISOString() };
  return { kind: "valid", claims };
}

function parseJsonClaims(payload: Buffer): TokenClaims | undefined {
  try {
    return JSON.parse(payload.toString("utf8")) as TokenClaims;
  } catch {
    return undefined;
  }
}

// lcw2's claims, in order:
//   u8  flags: bit 0 test mode; bits 1-2 disposable, 3-4 role, 5-6 free (0 null, 1 false, 2 true)
//   u8  status (STATUSES index)
//   u48 expiresAtMs, u48 checkedAt (ms; read back as its ISO string, as lcw1 carried it)
//   32 bytes: the address's SHA-256
//   u8 length + UTF-8: keyId, accountId, reason
//   u16 length + UTF-8: didYouMean, 0xffff for null
const STATUSES: readonly WidgetVerdict["status"][] = ["valid", "invalid", "risky", "unknown"];
const NULL_TEXT = 0xffff;
const FIXED_BYTES = 1 + 1 + 6 + 6 + 32;

const triOf = (value: boolean | null): number => (value === null ? 0 : value ? 2 : 1);
const triFrom = (bits: number): boolean | null | undefined =>
  bits === 0 ? null : bits === 1 ? false : bits === 2 ? true : undefined;

function encodeClaims(claims: ClaimsToSign): Buffer {
  const { verdict, keyId, accountId, checkedAtMs } = claims;
  const { reason, didYouMean } = verdict;
  const keyIdBytes = Buffer.byteLength(keyId, "utf8");
  const accountIdBytes = Buffer.byteLength(accountId, "utf8");
  const reasonBytes = Buffer.byteLength(reason, "utf8");
  const didYouMeanBytes = didYouMean === null ? 0 : Buffer.byteLength(didYouMean, "utf8");
  const status = STATUSES.indexOf(verdict.status);
  if (
    keyIdBytes > 255 ||
    accountIdBytes > 255 ||
    reasonBytes > 255 ||
    didYouMeanBytes >= NULL_TEXT ||
    status === -1 ||
    !Number.isSafeInteger(checkedAtMs) ||
    claims.emailHash.length !== 64
  )
    throw new RangeError("widget token: claims out of the binary format's range");
  const out = Buffer.allocUnsafe(
    FIXED_BYTES + 3 + keyIdBytes + accountIdBytes + reasonBytes + 2 + didYouMeanBytes,
  );
  let at = out.writeUInt8(
    (claims.mode === "test" ? 1 : 0) |
      (triOf(verdict.disposable) << 1) |
      (triOf(verdict.role) << 3) |
      (triOf(verdict.free) << 5),
    0,
  );
  at = out.writeUInt8(status, at);
  at = out.writeUIntBE(claims.expiresAtMs, at, 6);
  at = out.writeUIntBE(checkedAtMs, at, 6);
  at += out.write(claims.emailHash, at, "hex");
  at = out.writeUInt8(keyIdBytes, at);
  at += out.write(keyId, at, "utf8");
  at = out.writeUInt8(accountIdBytes, at);
  at += out.write(accountId, at, "utf8");
  at = out.writeUInt8(reasonBytes, at);
  at += out.write(reason, at, "utf8");
  at = out.writeUInt16BE(didYouMean === null ? NULL_TEXT : didYouMeanBytes, at);
  if (didYouMean !== null) out.write(didYouMean, at, "utf8");
  return out;
}

/** The claims of an lcw2 payload, or undefined when it is not one (never after a good MAC). */
function decodeClaims(bytes: Buffer): TokenClaims | undefined {
  if (bytes.length < FIXED_BYTES + 5) return undefined;
  const flags = bytes.readUInt8(0);
  const status = STATUSES[bytes.readUInt8(1)];
  const disposable = triFrom((flags >> 1) & 3);
  const role = triFrom((flags >> 3) & 3);
  const free = triFrom((flags >> 5) & 3);
  if (status === undefined || disposable === undefined || role === undefined || free === undefined)
    return undefined;
  const expiresAtMs = bytes.readUIntBE(2, 6);
  const checkedAtMs = bytes.readUIntBE(8, 6);
  const emailHash = bytes.toString("hex", 14, 46);
  let at = FIXED_BYTES;
  const texts: string[] = [];
  for (let i = 0; i < 3; i++) {
    const length = bytes.readUInt8(at);
    if (at + 1 + length > bytes.length) return undefined;
    texts.push(bytes.toString("utf8", at + 1, at + 1 + length));
    at += 1 + length;
  }
  if (at + 2 > bytes.length) return undefined;
  const length = bytes.readUInt16BE(at);
  at += 2;
  let didYouMean: string | null = null;
  if (length !== NULL_TEXT) {
    if (at + length !== bytes.length) return undefined;
    didYouMean = bytes.toString("utf8", at, at + length);
  } else if (at !== bytes.length) return undefined;
  const [keyId, accountId, reason] = texts as [string, string, WidgetVerdict["reason"]];
  return {
    keyId,
    accountId,
    emailHash,
    expiresAtMs,
    checkedAt: new Date(checkedAtMs).toISOString(),
    mode: flags & 1 ? "test" : "live",
    verdict: { status, reason, didYouMean, disposable, role, free },
  };
}
