// Erasure of one person (issue 25): the lead and every copy of its data we hold go in one
// transaction with a tombstone and an audit entry; then the bytes are scrubbed from the files.
// Idempotent: erasing an erased lead answers as before; a lead never seen (or another account's)
// is not_found.
import { createHmac } from "node:crypto";
import type { AuditActor, AuditTrail } from "../audit/audit.service.js";
import { normalizeEmailAddress } from "../checks/email/normalized-email.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { runInTransaction } from "../storage/transaction.js";
import type { ErasureRepo, ErasureTerms } from "./erasure.repo.js";

interface ErasureCounts {
  leads: number;
  batch_items: number;
  events: number;
  webhook_deliveries: number;
  validation_jobs: number;
  job_payloads: number;
  account_exports: number;
}

export type EraseOutcome =
  | {
      kind: "erased";
      lead_id: string;
      erased_at: string;
      already_erased: boolean;
      removed: ErasureCounts | null;
    }
  | { kind: "not_found" };

type ErasedLead = Extract<EraseOutcome, { kind: "erased" }>;
export type ErasePersonOutcome =
  | { kind: "erased"; email: string; leads: ErasedLead[] }
  | { kind: "not_found" };

export interface ErasureDeps {
  database: Database;
  clock: Clock;
  repo: ErasureRepo;
  audit: AuditTrail;
  /** Key of the tombstone's email HMAC; without one, no hash is kept and nothing can be suppressed. */
  hmacKey: string | undefined;
}

/**
 * How long a process trusts what it last read of an account's suppress_erased_emails (ADR 0081):
 * lead creation asks it on every call, and most accounts never turn it on, so the answer "off"
 * saves a query per lead. The process that changes the setting forgets its copy at once; another
 * process sees the change within this time. Erasures themselves are never cached.
 */
const SUPPRESSION_SETTING_TTL_MS = 5_000;
/** Accounts remembered at most (the map is emptied when full, never grows without bound). */
const SUPPRESSION_SETTINGS_KEPT = 10_000;

export class ErasureService {
  private readonly suppressionSettings = new Map<string, { on: boolean; until: number }>();

  constructor(private readonly deps: ErasureDeps) {}

  /** Drops this process's copy of the account's suppression setting (it was just changed). */
  forgetSuppressionSetting(accountId: string): void {
    this.suppressionSettings.delete(accountId);
  }

  private async suppresses(accountId: string): Promise<boolean> {
    const now = performance.now();
    const known = this.suppressionSettings.get(accountId);
    if (known && known.until > now) return known.on;
    const on = await this.deps.repo.suppressionOn(this.deps.database.db, accountId);
    if (this.suppressionSettings.size >= SUPPRESSION_SETTINGS_KEPT) this.suppressionSettings.clear();
    this.suppressionSettings.set(accountId, { on, until: now + SUPPRESSION_SETTING_TTL_MS });
    return on;
  }

  async erase(accountId: string, leadId: string, actor: AuditActor): Promise<EraseOutcome> {
    const { database, repo, clock } = this.deps;
    const outcome = await runInTransaction(database.db, async (trx): Promise<EraseOutcome> => {
      const lead = await repo.findLead(trx, accountId, leadId);
      if (!lead) {
        const tombstone = await repo.findTombstone(trx, accountId, leadId);
        if (!tombstone) return { kind: "not_found" };
        return {
          kind: "erased",
          lead_id: leadId,
          erased_at: tombstone.erased_at,
          already_erased: true,
          removed: null,
        };
      }
      const erasedAt = clock.now().toISOString();
      const terms: ErasureTerms = { accountId, leadId, email: lead.email_lower };
      const removed: ErasureCounts = {
        batch_items: await repo.redactBatchItems(trx, terms),
        events: await repo.deleteEvents(trx, terms),
        webhook_deliveries: await repo.deleteDeliveries(trx, terms),
        validation_jobs: await repo.deleteValidationJobs(trx, terms),
        job_payloads: await repo.deleteJobPayloads(trx, database.caps, terms),
        account_exports: await repo.deleteExports(trx, accountId),
        leads: await repo.deleteLead(trx, terms),
      };
      await repo.insertTombstone(trx, {
        lead_id: leadId,
        account_id: accountId,
        erased_at: erasedAt,
        email_hmac: this.emailHmac(lead.email),
      });
      await this.deps.audit.record(trx, accountId, {
        actor,
        action: "lead.erased",
        target: { kind: "lead", id: leadId },
        details: { removed },
      });
      return { kind: "erased", lead_id: leadId, erased_at: erasedAt, already_erased: false, removed };
    });
    if (outcome.kind === "erased" && !outcome.already_erased) await repo.scrub(database.db, database.caps);
    return outcome;
  }

  /**
   * Erases a person by address: every lead of the account with this mailbox (aliases folded,
   * archived leads included), each as `erase` does. No such lead is not_found: nothing is held
   * under this address as a lead (a tombstone keeps no address to look up).
   */
  async eraseByEmail(accountId: string, email: string, actor: AuditActor): Promise<ErasePersonOutcome> {
    const address = email.trim();
    const ids = await this.deps.repo.findLeadIdsByEmail(
      this.deps.database.db,
      accountId,
      normalizeEmailAddress(address),
      address.toLowerCase(),
    );
    const leads: ErasedLead[] = [];
    for (const id of ids) {
      const outcome = await this.erase(accountId, id, actor);
      if (outcome.kind === "erased") leads.push(outcome);
    }
    return leads.length === 0 ? { kind: "not_found" } : { kind: "erased", email: address, leads };
  }

  /** Whether `email` was erased from this account and the account refuses erased addresses. */
  async isSuppressed(accountId: string, email: string): Promise<boolean> {
    const hmac = this.emailHmac(email);
    if (hmac === null || !(await this.suppresses(accountId))) return false;
    return this.deps.repo.isSuppressed(this.deps.database.db, accountId, hmac);
  }

  /**
   * The addresses among `emails` that must not come back into this account: erased before, with
   * the account's suppress_erased_emails on. Lead creation, bulk and CSV import and syncs ask
   * this before writing a lead (one query per 500 addresses).
   */
  async suppressedAmong(accountId: string, emails: readonly string[]): Promise<Set<string>> {
    if (!this.deps.hmacKey || emails.length === 0 || !(await this.suppresses(accountId))) {
      return new Set();
    }
    const hmacOf = new Map<string, string>();
    for (const email of emails) {
      const hmac = this.emailHmac(email);
      if (hmac) hmacOf.set(email, hmac);
    }
    const hits = await this.deps.repo.suppressedHmacs(this.deps.database.db, accountId, [
      ...new Set(hmacOf.values()),
    ]);
    return new Set(emails.filter((email) => hits.has(hmacOf.get(email) ?? "")));
  }

  /** HMAC-SHA256 of the normalized address (aliases folded), so `A.b+x@gmail.com` matches `ab@gmail.com`. */
  emailHmac(email: string): string | null {
    if (!this.deps.hmacKey) return null;
    return createHmac("sha256", this.deps.hmacKey).update(normalizeEmailAddress(email)).digest("hex");
  }
}
