// Lead import (spec "Lead", decisions §4): many leads in one request (bulk JSON, CSV import).
// Each item is checked on its own; the good ones are created and, when validating, charged in
// one debit and validated as one batch.
import { conflict, invalid } from "../lib/errors.js";
import type { LeadsTable } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import { itemSchemaErrors, newLeadRow } from "./lead-fields.js";
import { chargeLeads, insertLeads, type LeadsDeps, SUPPRESSED_REASON } from "./lead-writes.js";
import type { LeadsRepo } from "./leads.repo.js";
import type { LeadCreateInput } from "./leads.schemas.js";

export interface BulkResult {
  created: number;
  failed: number;
  batchId: string | null;
  leads: { id: string; email: string; status: "created" }[];
  errors: { index: number; email: string | null; error: string }[];
  /** Items skipped because the account refuses their erased address (also in `errors` outside
   *  import mode); `line` is the CSV line in import mode. */
  suppressed: { index: number; line: number | null; email: string }[];
}

export class LeadImport {
  constructor(
    private readonly deps: LeadsDeps,
    private readonly repo: LeadsRepo,
  ) {}

  /** Each item is checked on its own; the good ones are created and, when validating, charged
   *  in one debit and validated as one batch. Not enough credits for all: 402, nothing created. */
  async bulk(
    accountId: string,
    items: LeadCreateInput[],
    validate: boolean,
    source = "api",
    /** Import mode: any bad item refuses the whole request (422 by line number), nothing created. */
    strict?: { lines: number[] },
  ): Promise<BulkResult> {
    // Items arrive unchecked (see itemSchemaErrors).
    const now = this.deps.clock.now();
    const itemErrors: BulkResult["errors"] = [];
    const rows: LeadsTable[] = [];
    /** normalized_email -> index of the item that produced the row (aliases of one mailbox are one lead). */
    const indexOf = new Map<string, number>();
    items.forEach((item, index) => {
      const email = typeof item?.email === "string" ? item.email : null;
      const schemaError = itemSchemaErrors(item);
      if (schemaError) {
        itemErrors.push({ index, email, error: schemaError });
        return;
      }
      const built = newLeadRow(accountId, { ...item, validate }, source, now, this.deps.normalizeWebsite);
      if ("errors" in built) {
        itemErrors.push({
          index,
          email,
          error: built.errors.map((e) => `${e.field}: ${e.message}`).join("; "),
        });
      } else if (indexOf.has(built.row.normalized_email)) {
        itemErrors.push({ index, email, error: "duplicate email in this request" });
      } else {
        indexOf.set(built.row.normalized_email, index);
        rows.push(built.row);
      }
    });
    // Erased addresses the account refuses are skipped with their reason, never created; in
    // import mode they do not refuse the file (a re-import of an old export must still work).
    const suppressed: BulkResult["suppressed"] = [];
    const refused = await this.deps.suppression?.suppressedAmong(
      accountId,
      rows.map((r) => r.email),
    );
    if (refused?.size) {
      for (let i = rows.length - 1; i >= 0; i--) {
        const row = rows[i]!;
        if (!refused.has(row.email)) continue;
        const index = indexOf.get(row.normalized_email)!;
        rows.splice(i, 1);
        indexOf.delete(row.normalized_email);
        suppressed.unshift({
          index,
          line: strict ? (strict.lines[index] ?? index + 2) : null,
          email: row.email,
        });
        if (!strict) itemErrors.push({ index, email: row.email, error: SUPPRESSED_REASON });
      }
    }
    const { db, caps } = this.deps.database;
    const attempt = () =>
      runInTransaction(db, async (trx) => {
        const errors = [...itemErrors];
        const normalized = rows.map((r) => r.normalized_email);
        await this.repo.lockMailboxes(trx, caps, accountId, normalized);
        const taken = await this.repo.liveNormalizedEmailsTaken(trx, accountId, normalized);
        const fresh = rows.filter((r) => {
          const holder = taken.get(r.normalized_email);
          if (holder === undefined) return true;
          errors.push({
            index: indexOf.get(r.normalized_email)!,
            email: r.email,
            error: `a lead with this email already exists (${holder})`,
          });
          return false;
        });
        if (strict && errors.length > 0) {
          errors.sort((a, b) => a.index - b.index);
          throw invalid(
            errors.slice(0, 200).map((e) => ({
              field: `line ${strict.lines[e.index] ?? e.index + 2}`,
              message: e.email ? `${e.email}: ${e.error}` : e.error,
              type: "row",
            })),
            `${errors.length} bad line(s); nothing was imported`,
          );
        }
        let batchId: string | null = null;
        if (validate && fresh.length > 0) {
          await chargeLeads(
            this.deps.credits,
            trx,
            accountId,
            fresh.length * this.deps.prices.leadCreateWithValidation,
            `Bulk lead creation with validation (${fresh.length})`,
            fresh[0]!.id,
          );
        }
        // Leads to validate are written `processing` at once (one write per lead, not two).
        if (validate) for (const row of fresh) row.validation_status = "processing";
        await insertLeads(this.repo, this.deps.events, trx, fresh, now);
        if (validate && fresh.length > 0) {
          const batch = await this.deps.scheduler.startLeadBatch(trx, accountId, fresh, {
            webhookUrl: null,
            source,
            insertedProcessing: true,
          });
          batchId = batch.batchId;
        }
        errors.sort((a, b) => a.index - b.index);
        return {
          created: fresh.length,
          failed: errors.length,
          batchId,
          leads: fresh.map((r) => ({ id: r.id, email: r.email, status: "created" as const })),
          errors,
          suppressed,
        };
      });
    // A lead with one of these emails was created between the read and the insert (the unique
    // index refused it, nothing of this request was kept): the next look reports it per item.
    // Each refusal means another request took one of these emails, so the taken set only grows:
    // after as many tries as there are rows, only churn (leads created and archived meanwhile)
    // could still refuse, and that is a conflict the caller retries.
    for (let tries = 0; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        if (!caps.isUniqueViolation(error)) throw error;
        if (tries >= rows.length) {
          throw conflict("Leads with these emails kept changing while they were created; retry");
        }
      }
    }
  }
}
