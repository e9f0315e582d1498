// Wires the usage module: per-account usage figures over the ledger and the validations.
import type { Module } from "../jobs/catalog.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { UsageRepo } from "./usage.repo.js";
import { UsageService } from "./usage.service.js";

export function createUsage(deps: { database: Database; clock: Clock }): Module<{ usage: UsageService }> {
  return { services: { usage: new UsageService({ ...deps, repo: new UsageRepo() }) }, jobs: [] };
}
