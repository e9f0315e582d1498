// Prefixed, time-sortable identifiers: `<prefix>_` + a lowercase ULID (48-bit ms time + 80 random bits).
import { monotonicFactory } from "ulid";

export type IdPrefix = "acct" | "lead" | "batch" | "job" | "wh" | "dlv" | "key" | "txn" | "evt" | "item";

const next = monotonicFactory();

export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  return `${prefix}_${next(nowMs).toLowerCase()}`;
}
