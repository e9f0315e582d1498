// Wires the audit module: the repository and the service other modules call inside their
// transactions. Its purge runs in the retention job (src/retention).
import type { Module } from "../jobs/catalog.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { AuditRepo } from "./audit.repo.js";
import { AuditService } from "./audit.service.js";

export interface AuditModuleDeps {
  database: Database;
  clock: Clock;
}

export function createAudit(deps: AuditModuleDeps): Module<{ audit: AuditService }> {
  const repo = new AuditRepo();
  return {
    services: { audit: new AuditService({ database: deps.database, clock: deps.clock, repo }) },
    jobs: [],
  };
}
