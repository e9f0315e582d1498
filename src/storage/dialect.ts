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
  /** How lead search finds a substring through an index (migration 0010): an FTS5 trigram table
   *  beside `leads`, or a pg_trgm GIN index on `leads.search_text` itself. */
  leadSearch: "fts5_trigram" | "pg_trgm";
  /** A job table of an external queue (pg-boss) whose payloads erasure must reach; null: none. */
  externalJobTable: string | null;
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
  leadSearch: "fts5_trigram",
  externalJobTable: null,
};

const postgresCaps: DialectCaps = {
  kind: "postgres",
  skipLocked: true,
  concurrentWriters: true,
  isUniqueViolation: (e) => typeof e === "object" && e !== null && "code" in e && e.code === "23505",
  leadSearch: "pg_trgm",
  externalJobTable: "pgboss.job",
};

export function capsFor(kind: DatabaseKind): DialectCaps {
  return kind === "sqlite" ? sqliteCaps : postgresCaps;
}
