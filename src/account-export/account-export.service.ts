// Account export (issue 25): a job builds one gzipped JSON Lines file of everything the account
// holds (each line `{ "resource": ..., "data": row }`), downloadable for 24 hours with a token
// shown once (only its hash is stored). Requesting it is audited. Refusals are thrown as the
// domain's failures (ADR 0075): an unknown, another account's or wrongly-tokened export is
// not_found, an expired link not_found with reason expired, one still being built a conflict.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { AuditActor, AuditTrail } from "../audit/audit.service.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { Clock } from "../lib/clock.js";
import { conflict, fail, notFound } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import { runInTransaction } from "../storage/transaction.js";
import { type AccountExportRepo, EXPORTED, type ExportedResource } from "./account-export.repo.js";

export const ACCOUNT_EXPORT_JOB = "account.export";
const EXPORT_LINK_TTL_MS = 24 * 3_600_000;
const PAGE = 1000;

export interface ExportStatus {
  export_id: string;
  status: "pending" | "ready" | "failed";
  size_bytes: number | null;
  error: string | null;
  created_at: string;
  completed_at: string | null;
  expires_at: string;
}

export interface ExportArchive {
  archive: Buffer;
  exportId: string;
}

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export class AccountExportService {
  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      queue: JobQueue;
      repo: AccountExportRepo;
      audit: AuditTrail;
    },
  ) {}

  async request(accountId: string, actor: AuditActor): Promise<ExportStatus & { token: string }> {
    const now = this.deps.clock.now();
    const token = `lcx_${randomBytes(24).toString("base64url")}`;
    const row = {
      id: newId("exp", now.getTime()),
      account_id: accountId,
      status: "pending" as const,
      token_hash: hashToken(token),
      archive: null,
      size_bytes: null,
      error: null,
      created_at: now.toISOString(),
      completed_at: null,
      expires_at: new Date(now.getTime() + EXPORT_LINK_TTL_MS).toISOString(),
    };
    await runInTransaction(this.deps.database.db, async (trx) => {
      await this.deps.repo.insert(trx, row);
      await this.deps.queue.send(ACCOUNT_EXPORT_JOB, { exportId: row.id, accountId }, { trx });
      await this.deps.audit.record(trx, accountId, {
        actor,
        action: "account.exported",
        target: { kind: "export", id: row.id },
      });
    });
    return { ...toStatus(row), token };
  }

  async status(accountId: string, exportId: string): Promise<ExportStatus> {
    const row = await this.deps.repo.find(this.deps.database.db, accountId, exportId);
    if (!row) throw notFound("Export");
    return toStatus(row);
  }

  /** The job: reads every resource of the account a page at a time into one gzipped JSONL file. */
  async build(exportId: string, accountId: string): Promise<void> {
    const { db } = this.deps.database;
    const lines: string[] = [];
    // Archives whose link has expired lose their bytes whenever another export is built.
    await this.deps.repo.dropExpired(db, this.deps.clock.now().toISOString());
    try {
      for (const resource of Object.keys(EXPORTED) as ExportedResource[]) {
        const key = EXPORTED[resource].key;
        let after = "";
        for (;;) {
          const rows = await this.deps.repo.page(db, resource, accountId, after, PAGE);
          for (const data of rows) lines.push(JSON.stringify({ resource, data }));
          if (rows.length < PAGE) break;
          after = String(rows.at(-1)?.[key]);
        }
      }
      const archive = gzipSync(lines.length ? `${lines.join("\n")}\n` : "");
      await this.deps.repo.finish(db, exportId, archive, this.deps.clock.now().toISOString());
    } catch (error) {
      await this.deps.repo.fail(
        db,
        exportId,
        String(error).slice(0, 500),
        this.deps.clock.now().toISOString(),
      );
      throw error;
    }
  }

  /** The archive, for the token its link carries (the token is the credential). */
  async download(exportId: string, token: string): Promise<ExportArchive> {
    const row = await this.deps.repo.findForDownload(this.deps.database.db, exportId);
    const given = Buffer.from(hashToken(token));
    if (!row || !timingSafeEqual(given, Buffer.from(row.token_hash))) throw notFound("Export");
    if (row.expires_at <= this.deps.clock.now().toISOString())
      throw fail({
        kind: "not_found",
        message: "This export link has expired: request a new export",
        details: { reason: "expired" },
      });
    if (row.status !== "ready" || !row.archive)
      throw conflict("The export is not ready yet", { reason: "not_ready" });
    return { archive: Buffer.from(row.archive), exportId };
  }
}

function toStatus(row: {
  id: string;
  status: "pending" | "ready" | "failed";
  size_bytes: number | null;
  error: string | null;
  created_at: string;
  completed_at: string | null;
  expires_at: string;
}): ExportStatus {
  return {
    export_id: row.id,
    status: row.status,
    size_bytes: row.size_bytes === null ? null : Number(row.size_bytes),
    error: row.error,
    created_at: row.created_at,
    completed_at: row.completed_at,
    expires_at: row.expires_at,
  };
}
