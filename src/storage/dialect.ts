// Capability flags: the one place that knows how SQLite and PostgreSQL differ. Code asks for a
// capability ("can I skip locked rows?"), never for a dialect name.
import type { DatabaseKind } from "../config/config.js";

export interface DialectCaps {
  kind: DatabaseKind;
  /** `SELECT ... FOR UPDATE SKIP LOCKED` for claiming rows among several processes. */
  skipLocked: boolean;
  /** Several processes may write at once (PostgreSQL); SQLite serializes writers on one file. */
  concurrentWriters: boolean;
  /** Unique-violation error check for this driver. */
  isUniqueViolation(error: unknown): boolean;
}

const sqliteCaps: DialectCaps = {
  kind: "sqlite",
  skipLocked: false,
  concurrentWriters: false,
  isUniqueViolation: (e) =>
    typeof e === "object" &&
    e !== null &&
    "code" in e &&
    (e.code === "SQLITE_CONSTRAINT_UNIQUE" || e.code === "SQLITE_CONSTRAINT_PRIMARYKEY"),
};

const postgresCaps: DialectCaps = {
  kind: "postgres",
  skipLocked: true,
  concurrentWriters: true,
  isUniqueViolation: (e) => typeof e === "object" && e !== null && "code" in e && e.code === "23505",
};

export function capsFor(kind: DatabaseKind): DialectCaps {
  return kind === "sqlite" ? sqliteCaps : postgresCaps;
}
