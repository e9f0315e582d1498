// The HTTP app's type and its dependencies, apart from buildApp so routes can name them without
// importing the module that imports them.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import type { AccountExportService } from "../account-export/account-export.service.js";
import type { IdentityVerifier } from "../accounts/identity.js";
import type { SigninService } from "../accounts/signin.service.js";
import type { SsoService } from "../accounts/sso.service.js";
import type { AuditService } from "../audit/audit.service.js";
import type { BatchesService } from "../batches/batches.service.js";
import type { EmailEngine } from "../checks/email/email-engine.js";
import type { WebsiteEngine } from "../checks/website/website.engine.js";
import type { Config } from "../config/config.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { ErasureService } from "../erasure/erasure.service.js";
import type { EventBus } from "../events/events.js";
import type { IntegrationsServices } from "../integrations/create-integrations.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { KeysService } from "../keys/keys.service.js";
import type { LeadBulkActions } from "../leads/lead-bulk-actions.js";
import type { LeadsService, WebsiteNormalizer } from "../leads/leads.service.js";
import type { Clock } from "../lib/clock.js";
import type { Metrics } from "../metrics/metrics.js";
import type { NetworkHealth } from "../net/network-health.js";
import type { EmailChecksService } from "../paid-checks/email-checks.service.js";
import type { WebsiteChecksService } from "../paid-checks/website-checks.service.js";
import type { PaymentsService } from "../payments/payments.service.js";
import type { RetentionService } from "../retention/retention.service.js";
import type { RevalidationService } from "../revalidation/revalidation.service.js";
import type { Database } from "../storage/db.js";
import type { TeamsService } from "../teams/teams.service.js";
import type { UsageService } from "../usage/usage.service.js";
import type { WebhooksService } from "../webhooks/webhooks.service.js";
import type { WidgetService } from "../widget/widget.service.js";

export interface AppDeps {
  config: Readonly<Config>;
  database: Database;
  clock: Clock;
  events: EventBus;
  keys: KeysService;
  credits: CreditsService;
  payments: PaymentsService;
  identity: IdentityVerifier;
  signin: SigninService;
  leads: LeadsService;
  leadActions: LeadBulkActions;
  batches: BatchesService;
  usage: UsageService;
  webhooks: WebhooksService;
  /** Google Sheets and HubSpot connections and syncs; absent: their routes are not served. */
  integrations?: IntegrationsServices | undefined;
  widget: WidgetService;
  audit: AuditService;
  erasure: ErasureService;
  retention: RetentionService;
  revalidation: RevalidationService;
  accountExport: AccountExportService;
  teams: TeamsService;
  sso: SsoService;
  emailChecks: EmailChecksService;
  websiteChecks: WebsiteChecksService;
  normalizeWebsite: WebsiteNormalizer;
  emailEngine: EmailEngine;
  websiteEngine: WebsiteEngine;
  queue: JobQueue;
  redis?: Redis | undefined;
  /** The SMTP egress and HELO self-checks, shown as a detail of /readiness. */
  smtpSelfCheck?: { snapshot(): import("../checks/email/smtp-self-check.js").SelfCheckSnapshot } | undefined;
  /** Resolver and SMTP egress health (GET /v1/status, /readiness, 503 on checks); absent: not watched. */
  networkHealth?: Pick<NetworkHealth, "status" | "dnsDown"> | undefined;
  /** Readiness of the job queue (absent: not part of this process). */
  queueReady?: () => Promise<boolean>;
  /** Set when the process is shutting down: readiness turns 503 first. */
  lifecycle: { shuttingDown: boolean };
  /** Request metrics and GET /metrics; absent: neither. */
  metrics?: Metrics | undefined;
  /** Request logs go here (pino, with request ids); none when absent. */
  logger?: FastifyBaseLogger | undefined;
}

export type App = FastifyInstance<
  import("node:http").Server,
  import("node:http").IncomingMessage,
  import("node:http").ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
