// API key format (decisions §2, §8): secret keys are `sk_` + 40 alphanumeric characters (43 in
// all), publishable keys `pk_` + 40. Only the SHA-256 hash is stored (a publishable key, being
// public, is also kept in clear so listings can show it); `partial_key` shows the prefix, `...`
// and the last 4 characters.
import { createHash, randomInt, timingSafeEqual } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const KEY_PREFIX = "sk_";
const PUBLISHABLE_PREFIX = "pk_";
const KEY_BODY_LENGTH = 40;
const KEY_PATTERN = /^(sk|pk)_[A-Za-z0-9]{40}$/;

export type KeyType = "secret" | "publishable";

/** A new key; `pick` is injectable so tests can make keys deterministic. */
export function generateApiKey(pick: (n: number) => number = randomInt, type: KeyType = "secret"): string {
  let body = "";
  for (let i = 0; i < KEY_BODY_LENGTH; i++) body += ALPHABET[pick(ALPHABET.length)];
  return (type === "publishable" ? PUBLISHABLE_PREFIX : KEY_PREFIX) + body;
}

/** Whether the text has the shape of a secret (`sk_`) or publishable (`pk_`) key. */
export const isWellFormedApiKey = (key: string) => KEY_PATTERN.test(key);

/** The type a well-formed key's prefix names. */
export const keyTypeOf = (key: string): KeyType =>
  key.startsWith(PUBLISHABLE_PREFIX) ? "publishable" : "secret";

export const hashApiKey = (key: string) => createHash("sha256").update(key, "utf8").digest("hex");

export const partialKey = (last4: string, type: KeyType = "secret") =>
  `${type === "publishable" ? PUBLISHABLE_PREFIX : KEY_PREFIX}...${last4}`;

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}
