// Retention (issue 25): per-account days to keep archived leads, batch item details, webhook
// delivery bodies and audit entries (server defaults where unset; 0 keeps forever), and the purge
// that the daily job runs: bounded chunks, counts logged, an audit entry per account it touched.
import type { AuditActor, AuditService } from "../audit/audit.service.js";
import { SYSTEM_ACTOR } from "../audit/audit.service.js";
import type { Config } from "../config/config.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { runInTransaction } from "../storage/transaction.js";
import type { RetentionRepo } from "./retention.repo.js";

export interface RetentionSettings {
  archived_leads_days: number;
  batch_item_details_days: number;
  webhook_delivery_bodies_days: number;
  audit_entries_days: number;
  /** Refuse an erased address when it is created or imported again. */
  suppress_erased_emails: boolean;
}

export type PurgeCounts = {
  archived_leads: number;
  batch_item_details: number;
  webhook_delivery_bodies: number;
  audit_entries: number;
};

const DAY_MS = 86_400_000;
const ACCOUNT_PAGE = 500;

export interface RetentionDeps {
  config: Pick<Config, "privacy">;
  database: Database;
  clock: Clock;
  repo: RetentionRepo;
  audit: AuditService;
  /** Told of each account's purge (the process's logger). */
  onPurged?: (accountId: string, counts: PurgeCounts) => void;
  /** Told after an account's settings were saved (the erasure module forgets its cached copy). */
  onSettingsChanged?: (accountId: string) => void;
}

export class RetentionService {
  constructor(private readonly deps: RetentionDeps) {}

  async get(accountId: string): Promise<RetentionSettings> {
    const row = await this.deps.repo.settings(this.deps.database.db, accountId);
    const defaults = this.deps.config.privacy;
    return {
      archived_leads_days: row?.archived_lead_days ?? defaults.archivedLeadDays,
      batch_item_details_days: row?.batch_item_days ?? defaults.batchItemDays,
      webhook_delivery_bodies_days: row?.delivery_body_days ?? defaults.deliveryBodyDays,
      audit_entries_days: row?.audit_days ?? defaults.auditDays,
      suppress_erased_emails: row?.suppress_erased === 1,
    };
  }

  async update(
    accountId: string,
    changes: Partial<RetentionSettings>,
    actor: AuditActor,
  ): Promise<RetentionSettings> {
    const before = await this.get(accountId);
    const next = { ...before, ...changes };
    await runInTransaction(this.deps.database.db, async (trx) => {
      await this.deps.repo.saveSettings(trx, {
        account_id: accountId,
        archived_lead_days: next.archived_leads_days,
        batch_item_days: next.batch_item_details_days,
        delivery_body_days: next.webhook_delivery_bodies_days,
        audit_days: next.audit_entries_days,
        suppress_erased: next.suppress_erased_emails ? 1 : 0,
        updated_at: this.deps.clock.now().toISOString(),
      });
      await this.deps.audit.record(trx, accountId, {
        actor,
        action: "retention.changed",
        target: { kind: "account", id: accountId },
        details: { before, after: next },
      });
    });
    this.deps.onSettingsChanged?.(accountId);
    return next;
  }

  /** Purges every account past its settings; returns the totals. */
  async purgeAll(): Promise<PurgeCounts> {
    const totals: PurgeCounts = {
      archived_leads: 0,
      batch_item_details: 0,
      webhook_delivery_bodies: 0,
      audit_entries: 0,
    };
    let after = "";
    for (;;) {
      const ids = await this.deps.repo.accountIds(this.deps.database.db, after, ACCOUNT_PAGE);
      for (const accountId of ids) {
        const counts = await this.purgeAccount(accountId);
        for (const key of Object.keys(totals) as (keyof PurgeCounts)[]) totals[key] += counts[key];
      }
      if (ids.length < ACCOUNT_PAGE) return totals;
      after = ids.at(-1) ?? after;
    }
  }

  async purgeAccount(accountId: string): Promise<PurgeCounts> {
    const { repo, database, clock } = this.deps;
    const settings = await this.get(accountId);
    const now = clock.now().getTime();
    const chunk = this.deps.config.privacy.purgeChunk;
    const cutoff = (days: number) => new Date(now - days * DAY_MS).toISOString();
    const drain = async (days: number, step: (before: string) => Promise<number>) => {
      if (days <= 0) return 0;
      const before = cutoff(days);
      let total = 0;
      for (;;) {
        const done = await step(before);
        total += done;
        if (done < chunk) return total;
      }
    };
    const db = database.db;
    const counts: PurgeCounts = {
      archived_leads: await drain(settings.archived_leads_days, (b) =>
        repo.deleteArchivedLeads(db, accountId, b, chunk),
      ),
      batch_item_details: await drain(settings.batch_item_details_days, (b) =>
        repo.redactBatchItems(db, accountId, b, chunk),
      ),
      webhook_delivery_bodies: await drain(settings.webhook_delivery_bodies_days, (b) =>
        repo.redactDeliveryBodies(db, accountId, b, chunk),
      ),
      audit_entries: await drain(settings.audit_entries_days, (b) =>
        repo.deleteAuditEntries(db, accountId, b, chunk),
      ),
    };
    if (Object.values(counts).some((count) => count > 0)) {
      await this.deps.audit.recordAlone(accountId, {
        actor: SYSTEM_ACTOR,
        action: "retention.purged",
        target: { kind: "account", id: accountId },
        details: { counts, settings },
      });
      this.deps.onPurged?.(accountId, counts);
    }
    return counts;
  }
}
