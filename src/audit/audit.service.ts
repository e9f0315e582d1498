// The audit log's rules: appends chained per account (written in the caller's transaction),
// filtered reads with cursor paging, a CSV export and a verification that recomputes the chain.
import type { Kysely, Transaction } from "kysely";
import type { Clock } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import type { AuditEntriesTable, Schema } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import type { AuditFilter, AuditRepo } from "./audit.repo.js";
import { csvRow } from "./audit-csv.js";
import { canonicalJson, entryHash, GENESIS_HASH, redactSecrets } from "./audit-hash.js";

type ActorKind = "member" | "key" | "admin" | "system";

/** Who acted, and from where (the request's address and user agent; none for system work). */
export interface AuditActor {
  kind: ActorKind;
  id: string;
  ip?: string | null | undefined;
  userAgent?: string | null | undefined;
}

export interface AuditRecord {
  actor: AuditActor;
  action: string;
  target: { kind: string; id: string };
  details?: Record<string, unknown>;
}

/** What other modules call: an entry appended in their own transaction. */
export interface AuditTrail {
  record(trx: Transaction<Schema>, accountId: string, record: AuditRecord): Promise<string>;
}

export const SYSTEM_ACTOR: AuditActor = { kind: "system", id: "leadcheck" };

export interface AuditEntryView {
  id: string;
  seq: number;
  actor: { kind: ActorKind; id: string };
  action: string;
  target: { kind: string; id: string };
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
  created_at: string;
  prev_hash: string;
  hash: string;
}

export interface ChainVerification {
  valid: boolean;
  checked: number;
  head_seq: number;
  first_broken: { id: string | null; seq: number; reason: string } | null;
}

const VERIFY_PAGE = 1000;
const EXPORT_MAX_ROWS = 100_000;

export class AuditService implements AuditTrail {
  constructor(private readonly deps: { database: Database; clock: Clock; repo: AuditRepo }) {}

  /** Appends an entry inside `trx`: it commits or rolls back with the change it records. */
  async record(trx: Transaction<Schema>, accountId: string, record: AuditRecord): Promise<string> {
    const { repo, clock } = this.deps;
    const { seq, prevHash } = await repo.advanceHead(trx, accountId);
    const now = clock.now();
    const fields = {
      id: newId("aud", now.getTime()),
      account_id: accountId,
      seq,
      actor_kind: record.actor.kind,
      actor_id: record.actor.id,
      action: record.action,
      target_kind: record.target.kind,
      target_id: record.target.id,
      ip: record.actor.ip?.slice(0, 100) ?? null,
      user_agent: record.actor.userAgent?.slice(0, 500) ?? null,
      details: canonicalJson(redactSecrets(record.details ?? {})),
      created_at: now.toISOString(),
      prev_hash: prevHash,
    };
    await repo.insertEntry(trx, { ...fields, hash: entryHash(fields) });
    return fields.id;
  }

  /** An entry of its own transaction, for actions with no row change to share one with. */
  recordAlone(accountId: string, record: AuditRecord): Promise<string> {
    return runInTransaction(this.deps.database.db, (trx) => this.record(trx, accountId, record));
  }

  async list(
    accountId: string,
    filter: Omit<AuditFilter, "beforeSeq">,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<
    { kind: "listed"; entries: AuditEntryView[]; next_cursor: string | null } | { kind: "bad_cursor" }
  > {
    const beforeSeq = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
    if (beforeSeq === null) return { kind: "bad_cursor" };
    const rows = await this.deps.repo.list(
      this.deps.database.db,
      accountId,
      { ...filter, beforeSeq },
      page.limit + 1,
    );
    const more = rows.length > page.limit;
    const entries = rows.slice(0, page.limit).map(toView);
    const last = entries.at(-1);
    return { kind: "listed", entries, next_cursor: more && last ? encodeCursor(last.seq) : null };
  }

  /** The filtered entries as CSV, newest first, at most EXPORT_MAX_ROWS of them. */
  async *exportCsv(accountId: string, filter: Omit<AuditFilter, "beforeSeq">): AsyncGenerator<string> {
    yield csvRow([
      "id",
      "seq",
      "created_at",
      "actor_kind",
      "actor_id",
      "action",
      "target_kind",
      "target_id",
      "ip",
      "user_agent",
      "details",
      "hash",
    ]);
    let beforeSeq: number | undefined;
    let written = 0;
    while (written < EXPORT_MAX_ROWS) {
      const rows = await this.deps.repo.list(
        this.deps.database.db,
        accountId,
        { ...filter, beforeSeq },
        1000,
      );
      for (const row of rows) {
        yield csvRow([
          row.id,
          Number(row.seq),
          row.created_at,
          row.actor_kind,
          row.actor_id,
          row.action,
          row.target_kind,
          row.target_id,
          row.ip,
          row.user_agent,
          row.details,
          row.hash,
        ]);
      }
      written += rows.length;
      if (rows.length < 1000) return;
      beforeSeq = Number(rows.at(-1)?.seq);
    }
  }

  /**
   * Recomputes every entry's hash in seq order and checks each links to the one before; the head
   * row must name the last entry. Entries older than the retention window are purged from the
   * front, so the first remaining entry's previous hash is taken as given (unless it is seq 1).
   */
  async verify(accountId: string): Promise<ChainVerification> {
    const db: Kysely<Schema> = this.deps.database.db;
    const head = await this.deps.repo.head(db, accountId);
    const headSeq = head ? Number(head.seq) : 0;
    let previous: { seq: number; hash: string } | undefined;
    let checked = 0;
    for (;;) {
      const rows = await this.deps.repo.chainPage(db, accountId, previous?.seq ?? 0, VERIFY_PAGE);
      for (const row of rows) {
        const seq = Number(row.seq);
        const broken = (reason: string): ChainVerification => ({
          valid: false,
          checked,
          head_seq: headSeq,
          first_broken: { id: row.id, seq, reason },
        });
        if (previous && seq !== previous.seq + 1)
          return broken(`entries ${previous.seq + 1} to ${seq - 1} are missing`);
        if (previous && row.prev_hash !== previous.hash)
          return broken("does not link to the entry before it");
        if (!previous && seq === 1 && row.prev_hash !== GENESIS_HASH)
          return broken("the first entry does not start the chain");
        if (entryHash({ ...row, seq }) !== row.hash) return broken("its contents do not match its hash");
        checked += 1;
        previous = { seq, hash: row.hash };
      }
      if (rows.length < VERIFY_PAGE) break;
    }
    if (headSeq !== (previous?.seq ?? headSeq) || (previous && head && head.hash !== previous.hash)) {
      return {
        valid: false,
        checked,
        head_seq: headSeq,
        first_broken: {
          id: null,
          seq: (previous?.seq ?? 0) + 1,
          reason: "entries after this point are missing",
        },
      };
    }
    if (!previous && headSeq > 0) {
      // Every entry is gone while the head says some were written: only retention may do that.
      return { valid: true, checked: 0, head_seq: headSeq, first_broken: null };
    }
    return { valid: true, checked, head_seq: headSeq, first_broken: null };
  }
}

function toView(row: AuditEntriesTable): AuditEntryView {
  return {
    id: row.id,
    seq: Number(row.seq),
    actor: { kind: row.actor_kind, id: row.actor_id },
    action: row.action,
    target: { kind: row.target_kind, id: row.target_id },
    ip: row.ip,
    user_agent: row.user_agent,
    details: JSON.parse(row.details) as Record<string, unknown>,
    created_at: row.created_at,
    prev_hash: row.prev_hash,
    hash: row.hash,
  };
}

function encodeCursor(seq: number): string {
  return Buffer.from(`s:${seq}`).toString("base64url");
}

function decodeCursor(cursor: string): number | null {
  const match = /^s:(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString());
  return match ? Number(match[1]) : null;
}
