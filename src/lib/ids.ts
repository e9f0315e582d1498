// Prefixed, time-sortable identifiers: `<prefix>_` + a lowercase ULID (48-bit ms time + 80 random bits).
import { randomFillSync } from "node:crypto";
import { encodeTime, monotonicFactory } from "ulid";

export type IdPrefix =
  | "acct"
  | "lead"
  | "batch"
  | "job"
  | "wh"
  | "dlv"
  | "key"
  | "txn"
  | "evt"
  | "item"
  | "con"
  | "sync"
  | "wat"
  | "aud"
  | "exp"
  | "mem"
  | "inv";

/**
 * ulid's own source draws one byte from the system CSPRNG per character (16 calls per id); this
 * one serves the same bytes (as byte / 256) from a pool refilled 4 KiB at a time.
 */
function pooledRandom(poolBytes = 4096): () => number {
  const pool = new Uint8Array(poolBytes);
  let next = poolBytes;
  return () => {
    if (next === poolBytes) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 256;
  };
}

const nextUlid = monotonicFactory(pooledRandom());

export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  return `${prefix}_${nextUlid(nowMs).toLowerCase()}`;
}

/** The least id of `prefix` made at `ms` or later: ids sort by time, so those below it are older. */
export function firstIdAt(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encodeTime(ms, 10).toLowerCase()}`;
}
