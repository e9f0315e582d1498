// Wires lead validation, the first half of the leads module: the validator over the guarded
// checkers, the service that alone turns its answers into stored lead fields, and the
// `lead.validate` job. The batches module takes it (its runner validates chunks through it);
// the leads service (createLeads) takes the batches module's scheduler: no cycle to patch.
import type { EmailVerificationProvider } from "../../checks/email/email.types.js";
import type { WebsiteChecker } from "../../checks/website/website.types.js";
import { websiteScore } from "../../checks/website/website-score.js";
import type { EventBus } from "../../events/events.js";
import type { Module } from "../../jobs/catalog.js";
import type { Clock } from "../../lib/clock.js";
import type { Database } from "../../storage/db.js";
import { LeadsRepo } from "../leads.repo.js";
import { leadValidationJobs } from "./lead-validation.jobs.js";
import { LeadValidationService } from "./lead-validation.service.js";
import { LeadValidator } from "./lead-validator.js";

export interface LeadValidationModuleDeps {
  database: Database;
  events: EventBus;
  clock: Clock;
  /** The checkers behind the network guard. */
  email: EmailVerificationProvider;
  website: WebsiteChecker;
}

export function createLeadValidation(
  deps: LeadValidationModuleDeps,
): Module<{ leadValidation: LeadValidationService }> {
  const validator = new LeadValidator({ email: deps.email, website: deps.website, websiteScore });
  const leadValidation = new LeadValidationService({
    database: deps.database,
    events: deps.events,
    clock: deps.clock,
    validator,
    leads: new LeadsRepo(),
  });
  return { services: { leadValidation }, jobs: leadValidationJobs(leadValidation) };
}
