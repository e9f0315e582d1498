// API key format (decisions §2): `sk_` + 40 alphanumeric characters, 43 in all. Only the SHA-256
// hash is stored; `partial_key` shows `sk_...` and the last 4 characters.
import { createHash, randomInt, timingSafeEqual } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const KEY_PREFIX = "sk_";
export const KEY_BODY_LENGTH = 40;
const KEY_PATTERN = /^sk_[A-Za-z0-9]{40}$/;

/** A new secret; `pick` is injectable so tests can make keys deterministic. */
export function generateApiKey(pick: (n: number) => number = randomInt): string {
  let body = "";
  for (let i = 0; i < KEY_BODY_LENGTH; i++) body += ALPHABET[pick(ALPHABET.length)];
  return KEY_PREFIX + body;
}

export const isWellFormedApiKey = (key: string) => KEY_PATTERN.test(key);

export const hashApiKey = (key: string) => createHash("sha256").update(key, "utf8").digest("hex");

export const partialKey = (last4: string) => `${KEY_PREFIX}...${last4}`;

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}
