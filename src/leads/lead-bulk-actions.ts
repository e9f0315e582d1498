// Actions on a selection of leads (the dashboard's multi-select, SDK users): archive, add or remove
// tags, export. Like POST /v1/leads/validate, a selection is all of the account's live leads or
// nothing happens (404 listing the missing ids); none of these charge credits.
import type { EventBus } from "../events/events.js";
import type { Clock } from "../lib/clock.js";
import { type DomainError, invalid } from "../lib/errors.js";
import type { Database } from "../storage/db.js";
import type { LeadsTable } from "../storage/schema.js";
import { runInTransaction } from "../storage/transaction.js";
import { missingLeads } from "./lead-writes.js";
import type { LeadsRepo } from "./leads.repo.js";
import { TAG_MAX_CHARS, TAGS_PER_LEAD_MAX } from "./leads.schemas.js";

export interface TagChange {
  add?: string[] | undefined;
  remove?: string[] | undefined;
}

function missing(ids: string[], found: Set<string>): DomainError | null {
  const absent = ids.filter((id) => !found.has(id));
  if (absent.length === 0) return null;
  return missingLeads(absent);
}

/** Trimmed, non-empty, unique tags; the field errors of the others. */
function cleanTags(field: string, tags: string[] | undefined) {
  const errors: { field: string; message: string; type: string }[] = [];
  const out: string[] = [];
  for (const [i, raw] of (tags ?? []).entries()) {
    const tag = raw.trim();
    if (tag.length === 0 || tag.length > TAG_MAX_CHARS)
      errors.push({
        field: `${field}.${i}`,
        message: `tags are 1-${TAG_MAX_CHARS} characters`,
        type: "maxLength",
      });
    else if (!out.includes(tag)) out.push(tag);
  }
  return { tags: out, errors };
}

export class LeadBulkActions {
  constructor(
    private readonly deps: { database: Database; events: EventBus; clock: Clock; repo: LeadsRepo },
  ) {}

  async archive(accountId: string, leadIds: string[]): Promise<{ archived: number; leadIds: string[] }> {
    const ids = [...new Set(leadIds)];
    const at = this.deps.clock.now().toISOString();
    return runInTransaction(this.deps.database.db, async (trx) => {
      const refusal = missing(ids, await this.deps.repo.liveIds(trx, accountId, ids));
      if (refusal) throw refusal;
      const result = await this.deps.repo.archiveMany(trx, accountId, ids, at);
      return { archived: Number(result.numUpdatedRows), leadIds: ids };
    });
  }

  /** Adds then removes tags on every lead of the selection; a lead may carry at most 100. */
  async tag(
    accountId: string,
    leadIds: string[],
    change: TagChange,
  ): Promise<{ updated: number; leadIds: string[] }> {
    const ids = [...new Set(leadIds)];
    const add = cleanTags("add", change.add);
    const remove = cleanTags("remove", change.remove);
    const errors = [...add.errors, ...remove.errors];
    if (add.tags.length === 0 && remove.tags.length === 0 && errors.length === 0)
      errors.push({ field: "add", message: "name at least one tag to add or remove", type: "required" });
    if (errors.length > 0) throw invalid(errors);
    const now = this.deps.clock.now();
    return runInTransaction(this.deps.database.db, async (trx) => {
      const rows = await this.deps.repo.liveTags(trx, accountId, ids);
      const refusal = missing(ids, new Set(rows.map((r) => r.id)));
      if (refusal) throw refusal;
      const changed: { id: string; tags: string[] }[] = [];
      const tooMany: string[] = [];
      for (const row of rows) {
        const before: string[] = JSON.parse(row.tags);
        const after = [...before, ...add.tags.filter((t) => !before.includes(t))].filter(
          (t) => !remove.tags.includes(t),
        );
        if (after.length > TAGS_PER_LEAD_MAX) tooMany.push(row.id);
        else if (after.length !== before.length || after.some((t, i) => t !== before[i]))
          changed.push({ id: row.id, tags: after });
      }
      if (tooMany.length > 0) {
        throw invalid(
          tooMany.slice(0, 50).map((id) => ({
            field: `leadIds.${ids.indexOf(id)}`,
            message: `lead ${id} would carry more than ${TAGS_PER_LEAD_MAX} tags`,
            type: "maxItems",
          })),
          "Nothing was tagged",
        );
      }
      const at = now.toISOString();
      await this.deps.repo.updateMany(
        trx,
        accountId,
        changed.map((lead) => ({
          id: lead.id,
          changes: { tags: JSON.stringify(lead.tags), updated_at: at },
        })),
      );
      await this.deps.events.emitMany(
        trx,
        changed.map((lead) => ({
          type: "lead.updated" as const,
          accountId,
          data: { leadId: lead.id, changedFields: ["tags"] },
        })),
        now,
      );
      return { updated: changed.length, leadIds: ids };
    });
  }

  /** The selected leads in id order, for the CSV export; all must be live leads of the account. */
  async selection(accountId: string, leadIds: string[]): Promise<LeadsTable[]> {
    const ids = [...new Set(leadIds)];
    const rows = await this.deps.repo.liveByIds(this.deps.database.db, accountId, ids);
    const refusal = missing(ids, new Set(rows.map((r) => r.id)));
    if (refusal) throw refusal;
    return rows;
  }
}
