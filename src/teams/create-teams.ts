// Wires the teams module: members, roles and invitations over the database. No background jobs
// yet (expired invitations are refused by their date and stay as a record of who was invited).
import type { AuditTrail } from "../audit/audit.service.js";
import type { Module } from "../jobs/catalog.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { TeamsRepo } from "./teams.repo.js";
import { TeamsService } from "./teams.service.js";

export interface TeamsModuleDeps {
  database: Database;
  clock: Clock;
  audit: AuditTrail;
}

export function createTeams(deps: TeamsModuleDeps): Module<{ teams: TeamsService }> {
  const teams = new TeamsService(deps.database.db, new TeamsRepo(deps.database), deps.clock, deps.audit);
  return { services: { teams }, jobs: [] };
}
