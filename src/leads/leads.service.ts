// Lead rules (spec "Lead", decisions §4): normalization, case-insensitive duplicate refusal,
// customFields limits and merge, null clearing, archive as soft delete, credits charged upfront
// for validation, lead.created / lead.updated events. Field mapping lives in lead-fields.ts, many
// leads in one request (bulk, CSV import) in lead-import.ts, the shared writes in lead-writes.ts.
import { canHaveAliases } from "../checks/email/normalized-email.js";
import { type FieldError, invalid, notFound } from "../lib/errors.js";
import { pageOf } from "../lib/schema.js";
import type { LeadsTable } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import { customFieldNamesOf } from "./lead-csv-export.js";
import { checkCustomFields, mapLeadFields, newLeadRow, pick } from "./lead-fields.js";
import { type BulkResult, LeadImport } from "./lead-import.js";
import {
  LeadSyncImport,
  type SyncedLeadItem,
  type SyncedLeadsPlan,
  type SyncedLeadsResult,
} from "./lead-sync-import.js";
import { toLeadView } from "./lead-view.js";
import {
  chargeLeads,
  duplicateLead,
  insertLeads,
  type LeadsDeps,
  missingLeads,
  suppressedLead,
} from "./lead-writes.js";
import { type LeadFilter, prepareLiveLeadById } from "./leads.repo.js";
import type { LeadCreateInput, LeadListInput, LeadUpdateInput, LeadView } from "./leads.schemas.js";

// Names other modules import from here (kept stable across the split).
export type { WebsiteNormalizer } from "./lead-fields.js";
export type { BulkResult } from "./lead-import.js";
export type { SyncedLeadItem, SyncedLeadsPlan, SyncedLeadsResult } from "./lead-sync-import.js";
export type { LeadsDeps, ValidationScheduler } from "./lead-writes.js";

export class LeadsService {
  private readonly liveLeadById: ReturnType<typeof prepareLiveLeadById>;
  private readonly importer: LeadImport;
  private readonly syncImporter: LeadSyncImport;

  constructor(private readonly deps: LeadsDeps) {
    this.liveLeadById = prepareLiveLeadById(deps.database);
    this.importer = new LeadImport(deps, this.deps.repo);
    this.syncImporter = new LeadSyncImport(deps, this.deps.repo);
  }

  /** Rows or contacts of a sync: created, or matched to the live lead of the same mailbox. */
  importSynced(
    accountId: string,
    items: SyncedLeadItem[],
    source: "google_sheets" | "hubspot",
  ): Promise<SyncedLeadsResult> {
    return this.syncImporter.importSynced(accountId, items, source);
  }

  /** What importing these synced items would create, match and validate (nothing is written). */
  planSynced(accountId: string, items: SyncedLeadItem[]): Promise<SyncedLeadsPlan> {
    return this.syncImporter.plan(accountId, items);
  }

  /** The account's live leads among `ids` (a sync's write-back reads their verdicts). */
  async getMany(accountId: string, ids: string[]): Promise<LeadView[]> {
    const views: LeadView[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.deps.repo.liveByIds(this.deps.database.db, accountId, ids.slice(i, i + 500));
      views.push(...rows.map(toLeadView));
    }
    return views;
  }

  /** Up to `limit` live leads whose last validation is older than `before`, oldest first. */
  staleLeadIds(accountId: string, before: Date, limit: number): Promise<string[]> {
    return this.deps.repo.validatedBefore(this.deps.database.db, accountId, before.toISOString(), limit);
  }

  /** Records when these leads' verdicts were written back to their source. */
  async markSynced(accountId: string, ids: string[], at: Date): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await this.deps.repo.setSyncedAt(
        this.deps.database.db,
        accountId,
        ids.slice(i, i + 500),
        at.toISOString(),
      );
    }
  }

  async create(accountId: string, input: LeadCreateInput, source = "api"): Promise<LeadView> {
    const now = this.deps.clock.now();
    const built = newLeadRow(accountId, input, source, now, this.deps.normalizeWebsite);
    if ("errors" in built) throw invalid(built.errors);
    const { row, validate } = built;
    const { db, caps } = this.deps.database;
    if ((await this.deps.suppression?.suppressedAmong(accountId, [row.email]))?.size)
      throw suppressedLead(row.email);
    try {
      // The partial unique index on live emails decides duplicates (no read first: one round trip
      // less); the lead goes in before the charge, so a duplicate is refused as one even when the
      // account could not pay, and a refused lead rolls its charge back with it.
      await runInTransaction(db, async (trx) => {
        // Another alias of the same mailbox (j.doe+crm@gmail.com for jdoe@gmail.com) is a
        // duplicate too; the exact address is refused by the unique index below.
        if (canHaveAliases(row.normalized_email)) {
          await this.deps.repo.lockMailboxes(trx, caps, accountId, [row.normalized_email]);
          const alias = await this.deps.repo.findLiveByNormalizedEmail(trx, accountId, row.normalized_email);
          if (alias) throw duplicateLead(row.email, alias);
        }
        // One write per lead: a lead to validate goes in `processing` (as in a bulk create).
        const stored = validate ? { ...row, validation_status: "processing" } : row;
        await insertLeads(this.deps.repo, this.deps.events, trx, [stored], now);
        if (validate) {
          await chargeLeads(
            this.deps.credits,
            trx,
            accountId,
            this.deps.prices.leadCreateWithValidation,
            "Lead creation with validation",
            row.id,
          );
          await this.deps.scheduler.validateLead(trx, accountId, row.id);
        }
      });
    } catch (error) {
      if (caps.isUniqueViolation(error))
        throw duplicateLead(
          row.email,
          await this.deps.repo.findLiveByNormalizedEmail(db, accountId, row.normalized_email),
        );
      throw error;
    }
    // The answer is the lead at its creation (spec): `new`, rating 0, no verdict yet, whatever
    // its job has begun since (ADR 0004).
    return toLeadView(row);
  }

  async get(accountId: string, leadId: string): Promise<LeadView> {
    const row = await this.liveLeadById.first({ id: leadId, accountId });
    if (!row) throw notFound("Lead");
    return toLeadView(row);
  }

  async list(accountId: string, q: LeadListInput) {
    const filter = leadFilterOf(q);
    const { db, caps } = this.deps.database;
    const { rows, total } = await this.deps.repo.list(db, caps, accountId, filter, q.limit, q.offset);
    return pageOf("leads", rows.map(toLeadView), total, q);
  }

  async update(accountId: string, leadId: string, input: LeadUpdateInput): Promise<LeadView> {
    const errors: FieldError[] = [];
    const fields = mapLeadFields(input, this.deps.normalizeWebsite, errors);
    const { db, caps } = this.deps.database;
    const now = this.deps.clock.now();
    // Asked before the transaction: SQLite's one connection is held by it.
    if (fields.email && (await this.deps.suppression?.suppressedAmong(accountId, [fields.email]))?.size)
      throw suppressedLead(fields.email);
    try {
      return await runInTransaction(db, async (trx) => {
        const existing = await this.deps.repo.findLive(trx, accountId, leadId);
        if (!existing) throw notFound("Lead");
        const { customFields, ...columns } = fields;
        const changes: Partial<LeadsTable> = { ...columns };
        if (customFields !== undefined) {
          // Merge: listed keys overwrite, a null value removes the key, others are kept.
          const merged: Record<string, unknown> = { ...JSON.parse(existing.custom_fields) };
          for (const [k, v] of Object.entries(customFields ?? {})) {
            if (v === null) delete merged[k];
            else merged[k] = v;
          }
          checkCustomFields(merged, errors);
          changes.custom_fields = JSON.stringify(merged);
        }
        if (errors.length > 0) throw invalid(errors);
        if (changes.normalized_email && canHaveAliases(changes.normalized_email)) {
          await this.deps.repo.lockMailboxes(trx, caps, accountId, [changes.normalized_email]);
          const holder = await this.deps.repo.findLiveByNormalizedEmail(
            trx,
            accountId,
            changes.normalized_email,
            leadId,
          );
          if (holder) throw duplicateLead(changes.email!, holder);
        }
        changes.updated_at = now.toISOString();
        await this.deps.repo.update(trx, accountId, leadId, changes);
        const changed = Object.keys(fields).filter((k) => k !== "email_lower" && k !== "normalized_email");
        await this.deps.events.emit(trx, "lead.updated", accountId, { leadId, changedFields: changed }, now);
        return toLeadView({ ...existing, ...changes });
      });
    } catch (error) {
      if (caps.isUniqueViolation(error)) {
        const holder = fields.normalized_email
          ? await this.deps.repo.findLiveByNormalizedEmail(db, accountId, fields.normalized_email, leadId)
          : undefined;
        throw duplicateLead(fields.email ?? "", holder);
      }
      throw error;
    }
  }

  async archive(accountId: string, leadId: string): Promise<void> {
    const at = this.deps.clock.now().toISOString();
    const result = await this.deps.repo.update(this.deps.database.db, accountId, leadId, {
      archived_at: at,
      updated_at: at,
    });
    if (Number(result.numUpdatedRows) === 0) throw notFound("Lead");
  }

  /** The account's live leads that match the list's filters and search, in id order, read a page
   *  at a time, with the custom field names among them (CSV export: one column per name). */
  async exportable(accountId: string, q: LeadFilterInput = {}) {
    const filter = leadFilterOf(q);
    const { db, caps } = this.deps.database;
    const customFieldNames = await customFieldNamesOf(
      this.deps.repo.iterateCustomFields(db, caps, accountId, filter),
    );
    return { customFieldNames, rows: this.deps.repo.iterate(db, caps, accountId, filter) };
  }

  async stats(accountId: string) {
    const s = await this.deps.repo.stats(this.deps.database.db, accountId);
    const byStatus = Object.fromEntries(
      ["new", "processing", "valid", "invalid", "risky"].map((k) => [k, 0]),
    );
    for (const r of s.byStatus) byStatus[r.key] = Number(r.n);
    const byRecommendation = Object.fromEntries(
      ["high_priority", "validate", "research", "skip"].map((k) => [k, 0]),
    );
    for (const r of s.byRec) byRecommendation[r.key] = Number(r.n);
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    // The email verdict of validated leads; a verdict outside the four (none recorded) is unknown.
    const byVerdict = { valid: 0, risky: 0, invalid: 0, unknown: 0, notValidated: total - s.validated };
    for (const r of s.byVerdict) {
      const key = r.key === "valid" || r.key === "risky" || r.key === "invalid" ? r.key : "unknown";
      byVerdict[key] += Number(r.n);
    }
    return {
      total,
      validated: s.validated,
      byVerdict,
      byValidationStatus: byStatus,
      byRecommendation,
      averageRating: s.averageRating === null ? null : Math.round(s.averageRating * 10) / 10,
    };
  }

  /** Many leads in one request (bulk JSON, CSV import); see LeadImport. */
  bulk(
    accountId: string,
    items: LeadCreateInput[],
    validate: boolean,
    source = "api",
    strict?: { lines: number[] },
  ): Promise<BulkResult> {
    return this.importer.bulk(accountId, items, validate, source, strict);
  }

  /** Validates existing leads as a batch: all ids must be the account's (else 404 listing the
   *  missing ones, nothing charged); all are charged upfront in one step or none. */
  async validate(
    accountId: string,
    leadIds: string[],
    webhookUrl: string | null,
    /** Recorded on the batch; a sync names itself (`sync:<syncId>`) to find its batch again. */
    source = "validate",
  ) {
    const ids = [...new Set(leadIds)];
    const { db } = this.deps.database;
    return runInTransaction(db, async (trx) => {
      const found = await this.deps.repo.liveEmails(trx, accountId, ids);
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) {
        throw missingLeads(missing);
      }
      const batchRef = `validate:${ids[0]}:${ids.length}`;
      await chargeLeads(
        this.deps.credits,
        trx,
        accountId,
        ids.length * this.deps.prices.leadValidation,
        `Lead validation (${ids.length})`,
        batchRef,
      );
      const leads = ids.map((id) => ({ id, email: found.get(id)! }));
      const batch = await this.deps.scheduler.startLeadBatch(trx, accountId, leads, {
        webhookUrl,
        source,
        insertedProcessing: false,
      });
      return { ...batch, totalLeads: ids.length };
    });
  }
}

/** The list's query parameters without paging: what an export takes. */
export type LeadFilterInput = Omit<LeadListInput, "limit" | "offset">;

function leadFilterOf(q: LeadFilterInput): LeadFilter {
  return {
    emailValid: q.emailValid,
    minRating: pick(q.minDeliverabilityRating, q.min_score),
    maxRating: pick(q.maxDeliverabilityRating, q.max_score),
    validationStatus: pick(q.validationStatus, q.status),
    recommendation: q.leadRecommendation,
    campaign: q.campaign,
    source: q.source,
    search: q.search?.trim().toLowerCase() || undefined,
    tag: q.tag,
    minDomainAgeDays: q.minDomainAgeDays,
    maxDomainAgeDays: q.maxDomainAgeDays,
    domainListed: q.domainListed,
    hasDidYouMean: q.hasDidYouMean,
  };
}
