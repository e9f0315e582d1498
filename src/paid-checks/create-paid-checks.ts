// Wires the paid checks: POST /v1/check-email (charged, then checked within the request or as a
// durable validation job) and POST /v1/check-website, with their jobs.
import type { EmailVerificationProvider } from "../checks/email/email.types.js";
import type { WebsiteChecker, WebsiteNormalizer } from "../checks/website/website.types.js";
import type { Config } from "../config/config.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { EventBus } from "../events/events.js";
import type { Module } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { EmailChecksService } from "./email-checks.service.js";
import { paidCheckJobs } from "./paid-checks.jobs.js";
import { ValidationJobsRepo } from "./validation-jobs.repo.js";
import { WebsiteChecksService } from "./website-checks.service.js";

export interface PaidChecksModuleDeps {
  config: Pick<Config, "prices" | "smtp">;
  database: Database;
  events: EventBus;
  clock: Clock;
  queue: JobQueue;
  credits: CreditsService;
  /** The checkers behind the network guard. */
  email: EmailVerificationProvider;
  website: WebsiteChecker;
  normalizeWebsite: WebsiteNormalizer;
  /** Sends a check's unsigned ad-hoc `webhookUrl` callback (the webhooks module). */
  sendCallback: (url: string, payload: Record<string, unknown>) => Promise<void>;
  onError: (error: unknown, context: string) => void;
}

export interface PaidChecksServices {
  emailChecks: EmailChecksService;
  websiteChecks: WebsiteChecksService;
  validationJobs: ValidationJobsRepo;
}

export function createPaidChecks(deps: PaidChecksModuleDeps): Module<PaidChecksServices> {
  const { config } = deps;
  const validationJobs = new ValidationJobsRepo();
  const emailChecks = new EmailChecksService({
    database: deps.database,
    jobs: validationJobs,
    credits: deps.credits,
    clock: deps.clock,
    queue: deps.queue,
    email: deps.email,
    priceMilli: config.prices.emailCheck,
    retryDelayCapMs: config.smtp.retryDelayCapMs,
    sendCallback: deps.sendCallback,
    events: deps.events,
    onError: deps.onError,
  });
  const websiteChecks = new WebsiteChecksService({
    credits: deps.credits,
    website: deps.website,
    normalizeWebsite: deps.normalizeWebsite,
    priceMilli: config.prices.websiteCheck,
  });
  return { services: { emailChecks, websiteChecks, validationJobs }, jobs: paidCheckJobs(emailChecks) };
}
