// Wires the leads module: the lead service (create, list, update, import, validate), bulk
// actions and, on SQLite, the search indexer (ADR 0015). Lead validation is its other half
// (validation/create-lead-validation.ts); validation work is scheduled by the batches module.
import type { Config } from "../config/config.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { EventBus } from "../events/events.js";
import type { Module } from "../jobs/catalog.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { LeadBulkActions } from "./lead-bulk-actions.js";
import type { WebsiteNormalizer } from "./lead-fields.js";
import { LeadSearchIndexer } from "./lead-search-indexer.js";
import type { SuppressionCheck, ValidationScheduler } from "./lead-writes.js";
import { LeadsRepo } from "./leads.repo.js";
import { LeadsService } from "./leads.service.js";

export interface LeadsModuleDeps {
  config: Pick<Config, "prices">;
  database: Database;
  events: EventBus;
  clock: Clock;
  credits: CreditsService;
  normalizeWebsite: WebsiteNormalizer;
  /** Queues validation work (the batches module). */
  scheduler: ValidationScheduler;
  /** An erased address does not come back (issue 25): create, import and syncs ask first. */
  suppression?: SuppressionCheck;
  onError: (error: unknown, context: string) => void;
}

export interface LeadsServices {
  leads: LeadsService;
  leadActions: LeadBulkActions;
  /** SQLite only: indexes new leads for search after their commit (ADR 0015). */
  searchIndexer: LeadSearchIndexer | undefined;
}

export function createLeads(deps: LeadsModuleDeps): Module<LeadsServices> {
  const { database, events, clock } = deps;
  const repo = new LeadsRepo();
  // SQLite's search index follows the writes (ADR 0015); PostgreSQL's GIN index needs no help.
  const searchIndexer =
    database.caps.leadSearch === "fts5_trigram"
      ? new LeadSearchIndexer({ database, events, repo, onError: deps.onError })
      : undefined;
  return {
    services: {
      leads: new LeadsService({
        database,
        repo,
        credits: deps.credits,
        events,
        clock,
        normalizeWebsite: deps.normalizeWebsite,
        scheduler: deps.scheduler,
        prices: deps.config.prices,
        ...(deps.suppression ? { suppression: deps.suppression } : {}),
      }),
      leadActions: new LeadBulkActions({ database, events, clock, repo }),
      searchIndexer,
    },
    jobs: [],
    close: () => searchIndexer?.close(),
  };
}
