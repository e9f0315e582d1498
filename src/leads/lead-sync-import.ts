// Leads from a synced source (a sheet's rows, HubSpot contacts; issue 26). Each item is checked on
// its own; an item whose mailbox already has a live lead is matched to it (the lead rules'
// duplicate detection, aliases folded), never duplicated or changed; the others are created with
// their source and external id. Nothing is charged or validated here: the sync validates the
// created leads afterwards as one normal batch (LeadsService.validate).
import { conflict } from "../lib/errors.js";
import type { LeadsTable } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import { itemSchemaErrors, newLeadRow } from "./lead-fields.js";
import { insertLeads, type LeadsDeps, SUPPRESSED_REASON } from "./lead-writes.js";
import type { LeadsRepo } from "./leads.repo.js";
import type { LeadCreateInput } from "./leads.schemas.js";

export interface SyncedLeadItem {
  input: LeadCreateInput;
  /** `<spreadsheetId>!<sheet>` or the contact id. */
  externalId: string;
  /** The HubSpot portal id (for the link to the contact record). */
  externalAccount?: string | null;
}

export interface SyncedLeadsResult {
  /** Per item, in input order: the lead it became or matched, or why it was skipped. */
  items: ({ leadId: string; outcome: "created" | "matched"; normalizedEmail: string } | { error: string })[];
}

/** What a sync of these items would do, without doing it (the mapping preview's cost). */
export interface SyncedLeadsPlan {
  /** Items that would be skipped (no valid email, a field refused, the same mailbox twice). */
  skipped: number;
  created: number;
  /** Items whose mailbox already has a live lead. */
  matched: number;
  /** Created, plus matched leads never validated: what the sync's batch validates and charges. */
  toValidate: number;
}

export class LeadSyncImport {
  constructor(
    private readonly deps: LeadsDeps,
    private readonly repo: LeadsRepo,
  ) {}

  async plan(accountId: string, items: SyncedLeadItem[]): Promise<SyncedLeadsPlan> {
    const now = this.deps.clock.now();
    const mailboxes = new Set<string>();
    let skipped = 0;
    for (const item of items) {
      const built = itemSchemaErrors(item.input)
        ? null
        : newLeadRow(
            accountId,
            { ...item.input, validate: false },
            "preview",
            now,
            this.deps.normalizeWebsite,
          );
      if (!built || "errors" in built || mailboxes.has(built.row.normalized_email)) skipped++;
      else mailboxes.add(built.row.normalized_email);
    }
    const known = await this.repo.liveMailboxesValidated(this.deps.database.db, accountId, [...mailboxes]);
    const matched = known.size;
    const matchedValidated = [...known.values()].filter(Boolean).length;
    const created = mailboxes.size - matched;
    return { skipped, created, matched, toValidate: created + matched - matchedValidated };
  }

  async importSynced(
    accountId: string,
    items: SyncedLeadItem[],
    source: "google_sheets" | "hubspot",
  ): Promise<SyncedLeadsResult> {
    const now = this.deps.clock.now();
    const result: SyncedLeadsResult["items"] = [];
    const rows: { index: number; row: LeadsTable }[] = [];
    const firstIndexOf = new Map<string, number>();
    items.forEach((item, index) => {
      const schemaError = itemSchemaErrors(item.input);
      const built = schemaError
        ? { errors: [{ field: "item", message: schemaError }] }
        : newLeadRow(accountId, { ...item.input, validate: false }, source, now, this.deps.normalizeWebsite);
      if ("errors" in built) {
        result[index] = { error: built.errors.map((e) => `${e.field}: ${e.message}`).join("; ") };
        return;
      }
      const row: LeadsTable = {
        ...built.row,
        external_source: source,
        external_id: item.externalId,
        external_account: item.externalAccount ?? null,
      };
      const first = firstIndexOf.get(row.normalized_email);
      if (first !== undefined) {
        result[index] = { error: `same mailbox as item ${first + 1} of this pass` };
        return;
      }
      firstIndexOf.set(row.normalized_email, index);
      rows.push({ index, row });
    });
    // Erased addresses the account refuses are skipped (the sync counts them with this reason).
    const refused = await this.deps.suppression?.suppressedAmong(
      accountId,
      rows.map((r) => r.row.email),
    );
    if (refused?.size) {
      for (let i = rows.length - 1; i >= 0; i--) {
        const { index, row } = rows[i]!;
        if (!refused.has(row.email)) continue;
        rows.splice(i, 1);
        result[index] = { error: SUPPRESSED_REASON };
      }
    }
    const { db, caps } = this.deps.database;
    // A lead created elsewhere between the read and the insert makes the unique index refuse the
    // lot; the next look matches it. Bounded like the bulk import's retry.
    for (let tries = 0; ; tries++) {
      try {
        await runInTransaction(db, async (trx) => {
          const normalized = rows.map((r) => r.row.normalized_email);
          await this.repo.lockMailboxes(trx, caps, accountId, normalized);
          const taken = await this.repo.liveNormalizedEmailsTaken(trx, accountId, normalized);
          const fresh = rows.filter((r) => !taken.has(r.row.normalized_email));
          await insertLeads(
            this.repo,
            this.deps.events,
            trx,
            fresh.map((r) => r.row),
            now,
          );
          for (const { index, row } of rows) {
            const holder = taken.get(row.normalized_email);
            result[index] = holder
              ? { leadId: holder, outcome: "matched", normalizedEmail: row.normalized_email }
              : { leadId: row.id, outcome: "created", normalizedEmail: row.normalized_email };
          }
        });
        return { items: result };
      } catch (error) {
        if (!caps.isUniqueViolation(error)) throw error;
        if (tries >= 3) throw conflict("Leads with these emails kept changing; retry");
      }
    }
  }
}
