// The audit chain's hash and the rules for what an entry may hold. An entry's hash covers every
// field, its previous entry's hash included, in one canonical encoding (a JSON array in a fixed
// order, objects with sorted keys), so any edit of a stored row, a reordering or a removal in the
// middle changes a hash that verification recomputes.
import { createHash } from "node:crypto";

export const GENESIS_HASH = "0".repeat(64);
/** Bumped if the encoding ever changes; part of every hash. */
const HASH_VERSION = "audit-v1";

export interface HashedFields {
  id: string;
  account_id: string;
  seq: number;
  actor_kind: string;
  actor_id: string;
  action: string;
  target_kind: string;
  target_id: string;
  ip: string | null;
  user_agent: string | null;
  /** Canonical JSON text (canonicalJson). */
  details: string;
  created_at: string;
  prev_hash: string;
}

/** JSON with object keys sorted at every depth: one text per value. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

export function entryHash(fields: HashedFields): string {
  const encoded = JSON.stringify([
    HASH_VERSION,
    fields.id,
    fields.account_id,
    Number(fields.seq),
    fields.actor_kind,
    fields.actor_id,
    fields.action,
    fields.target_kind,
    fields.target_id,
    fields.ip,
    fields.user_agent,
    fields.details,
    fields.created_at,
    fields.prev_hash,
  ]);
  return createHash("sha256").update(encoded).digest("hex");
}

const SECRET_NAME = /secret|password|passwd|token|api_?key|key_hash|authorization|cookie|signature/i;
// Our own secret formats (API keys, webhook secrets, sign-in tokens) and bearer JWTs.
const SECRET_VALUE = /^(sk_|whsec_|lct_)|^eyJ[\w-]+\.[\w-]+\./;

/**
 * The details object as stored: fields named like secrets and values shaped like our secrets are
 * replaced by "[redacted]". An audit log is read by more people than hold the secrets.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return "[truncated]";
  if (typeof value === "string") return SECRET_VALUE.test(value) ? "[redacted]" : value.slice(0, 1000);
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => redactSecrets(item, depth + 1));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = SECRET_NAME.test(key) ? "[redacted]" : redactSecrets(item, depth + 1);
    }
    return out;
  }
  return value ?? null;
}
