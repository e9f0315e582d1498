// Wires config -> storage -> services -> HTTP app / worker. The CLI (src/cli/main.ts) and the
// tests build the service through these functions, so every entry point runs the same wiring.
import { Redis } from "ioredis";
import pino from "pino";
import type { AccountExportService } from "./account-export/account-export.service.js";
import { createAccountExport } from "./account-export/create-account-export.js";
import { IdentityVerifier } from "./accounts/identity.js";
import { SigninService } from "./accounts/signin.service.js";
import { SigninTokensRepo } from "./accounts/signin-tokens.repo.js";
import { SsoRepo } from "./accounts/sso.repo.js";
import { SsoService } from "./accounts/sso.service.js";
import type { AuditService } from "./audit/audit.service.js";
import { createAudit } from "./audit/create-audit.js";
import { batchJobDefinitions } from "./batches/batch.jobs.js";
import { BatchLimits } from "./batches/batch-limits.js";
import { BatchRunner } from "./batches/batch-runner.js";
import { BatchesService } from "./batches/batches.service.js";
import { EmailEngine } from "./checks/email/email-engine.js";
import { fetchHeadStatus, M365PersonalSite } from "./checks/email/m365-personal-site.js";
import { SmtpSelfCheck } from "./checks/email/smtp-self-check.js";
import { NetworkGuardedEmail, NetworkGuardedWebsite } from "./checks/network-guard.js";
import { DataSpaceEmail, DataSpaceWebsite } from "./checks/test-mode/data-space-checks.js";
import { ScriptedEmail } from "./checks/test-mode/scripted-email.js";
import { ScriptedWebsite } from "./checks/test-mode/scripted-website.js";
import { normalizeWebsite } from "./checks/website/normalize.js";
import { WebsiteEngine } from "./checks/website/website.engine.js";
import { websiteScore } from "./checks/website/website-score.js";
import type { Config } from "./config/config.js";
import { CreditsService } from "./credits/credits.service.js";
import { createErasure } from "./erasure/create-erasure.js";
import type { ErasureService } from "./erasure/erasure.service.js";
import { EventBus } from "./events/events.js";
import { EventsRepo } from "./events/events.repo.js";
import { type App, buildApp } from "./http/app.js";
import { createIntegrations, type IntegrationsServices } from "./integrations/create-integrations.js";
import { createDomainIntel } from "./intel/create-domain-intel.js";
import type { DomainIntelEngine } from "./intel/domain-intel.js";
import type { JobDefinition } from "./jobs/catalog.js";
import { createJobQueue, type JobQueue } from "./jobs/index.js";
import { KeyCache, LocalRevocationBoard, RedisRevocationBoard } from "./keys/key-cache.js";
import { KeysService } from "./keys/keys.service.js";
import { LeadBulkActions } from "./leads/lead-bulk-actions.js";
import { LeadSearchIndexer } from "./leads/lead-search-indexer.js";
import { LeadsRepo } from "./leads/leads.repo.js";
import { LeadsService, type WebsiteNormalizer } from "./leads/leads.service.js";
import { leadValidationJobs } from "./leads/validation/lead-validation.jobs.js";
import { LeadValidationService } from "./leads/validation/lead-validation.service.js";
import { LeadValidator } from "./leads/validation/lead-validator.js";
import { type Clock, systemClock } from "./lib/clock.js";
import { prettyStream } from "./lib/pretty-log.js";
import { StalledWorkSweeper } from "./lifecycle/stalled-work.sweeper.js";
import { checkMeters, creditMeter, meterJobs } from "./metrics/instrument.js";
import { Metrics } from "./metrics/metrics.js";
import { createNetworkHealth } from "./net/create-network-health.js";
import { DnsResolver } from "./net/dns.js";
import { classifyAddress } from "./net/guard.js";
import { HttpClient } from "./net/http-client.js";
import type { NetworkHealth } from "./net/network-health.js";
import { smtpConnector } from "./net/smtp-client.js";
import { EmailChecksService } from "./paid-checks/email-checks.service.js";
import { ValidationJobsRepo } from "./paid-checks/validation-jobs.repo.js";
import { WebsiteChecksService } from "./paid-checks/website-checks.service.js";
import type { PaymentGateway } from "./payments/payment-gateway.js";
import { PaymentsService } from "./payments/payments.service.js";
import { createRetention } from "./retention/create-retention.js";
import { scheduleRetentionPurge } from "./retention/retention.jobs.js";
import type { RetentionService } from "./retention/retention.service.js";
import { createRevalidation } from "./revalidation/create-revalidation.js";
import { scheduleRevalidation } from "./revalidation/revalidation.jobs.js";
import type { RevalidationService } from "./revalidation/revalidation.service.js";
import { type Database, migrateToLatest, openDatabase } from "./storage/db.js";
import { reportAfterCommitErrorsTo } from "./storage/transaction.js";
import { createTeams } from "./teams/create-teams.js";
import type { TeamsService } from "./teams/teams.service.js";
import { UsageService } from "./usage/usage.service.js";
import { API_VERSION } from "./version.js";
import { createWebhooks } from "./webhooks/create-webhooks.js";
import type { WebhooksService } from "./webhooks/webhooks.service.js";
import { createWidget } from "./widget/create-widget.js";
import type { WidgetService } from "./widget/widget.service.js";

export interface Services {
  config: Readonly<Config>;
  clock: Clock;
  database: Database;
  events: EventBus;
  credits: CreditsService;
  payments: PaymentsService;
  keys: KeysService;
  identity: IdentityVerifier;
  signin: SigninService;
  redis: Redis | undefined;
  dns: DnsResolver;
  /** Undefined when DOMAIN_INTEL is off. */
  domainIntel: DomainIntelEngine | undefined;
  emailEngine: EmailEngine;
  smtpSelfCheck: SmtpSelfCheck;
  /** Resolver and SMTP egress health; `serve` and `worker` start it (ADR 0020). */
  networkHealth: NetworkHealth;
  websiteEngine: WebsiteEngine;
  normalizeWebsite: WebsiteNormalizer;
  leads: LeadsService;
  /** SQLite only: indexes new leads for search after their commit (ADR 0015). */
  searchIndexer: LeadSearchIndexer | undefined;
  leadActions: LeadBulkActions;
  batches: BatchesService;
  batchRunner: BatchRunner;
  leadValidation: LeadValidationService;
  usage: UsageService;
  emailChecks: EmailChecksService;
  websiteChecks: WebsiteChecksService;
  webhooks: WebhooksService;
  integrations: IntegrationsServices;
  widget: WidgetService;
  audit: AuditService;
  erasure: ErasureService;
  retention: RetentionService;
  /** Scheduled re-validation of old verdicts (src/revalidation). */
  revalidation: RevalidationService;
  accountExport: AccountExportService;
  teams: TeamsService;
  sso: SsoService;
  sweeper: StalledWorkSweeper;
  queue: JobQueue;
  /** Every background job kind with its policy and handler (see src/jobs/catalog.ts). */
  jobCatalog: JobDefinition[];
  /** Prometheus metrics of this process (GET /metrics; WORKER_PORT on workers). */
  metrics: Metrics;
  logger: pino.Logger;
  lifecycle: { shuttingDown: boolean };
  close(): Promise<void>;
}

export async function createServices(
  config: Readonly<Config>,
  options: {
    clock?: Clock;
    migrate?: boolean;
    logger?: pino.Logger;
    /** Extra trusted CA for website checks and RDAP (tests); production uses NODE_EXTRA_CA_CERTS. */
    websiteCa?: string | Buffer;
  } = {},
): Promise<Services> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config);
  const logError = (error: unknown, context: string) => logger.error({ err: error }, context);
  reportAfterCommitErrorsTo((error) => logError(error, "after-commit effect failed"));
  const database = openDatabase(config.databaseUrl, {
    maxConnections: config.databasePoolMax,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    onPoolError: (error) => logger.warn({ err: error }, "PostgreSQL connection failed; the pool replaces it"),
  });
  if (options.migrate !== false) await migrateToLatest(database.db);
  const outbox = new EventsRepo();
  const events = new EventBus(outbox, (error, event) =>
    logger.error({ err: error, eventId: event.id, eventType: event.type }, "event listener failed"),
  );
  const metrics = new Metrics();
  const { audit } = createAudit({ database, clock });
  const { erasure } = createErasure({ config, database, clock, audit });
  const credits = new CreditsService({
    database,
    events,
    clock,
    newAccountMilliCredits: config.newAccountMilliCredits,
    audit,
    onDebited: creditMeter(metrics),
  });
  const payments = new PaymentsService({
    database,
    credits,
    clock,
    gateway: await paymentGateway(config),
    currency: config.payments.currency,
    minimumAmount: config.payments.minimumAmount,
    maximumAmount: config.payments.maximumAmount,
  });
  const identity = new IdentityVerifier(config.auth);
  const signin = new SigninService(new SigninTokensRepo(database.db), {
    secret: config.auth.jwtSecret,
    issuer: config.auth.issuer,
    audience: config.auth.audience,
    clock,
  });
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        maxRetriesPerRequest: 2,
        enableOfflineQueue: false,
        lazyConnect: false,
        // Rate-limit counters of concurrent requests share one write and one round trip.
        enableAutoPipelining: true,
      })
    : undefined;
  // The rate limiter falls back to memory and readiness reports the outage; the log names it, once
  // per distinct error and minute (ioredis repeats it on every reconnect attempt).
  redis?.on("error", logRepeatedErrorOnce(logger, "Redis connection error", 60_000));
  // Known keys skip their database read only where every instance sees every revocation: through
  // Redis, or on embedded SQLite, whose one process makes them all.
  const board = redis
    ? new RedisRevocationBoard(redis)
    : database.kind === "sqlite"
      ? new LocalRevocationBoard(() => clock.now().getTime())
      : undefined;
  const keyCache =
    board && config.auth.keyCacheTtlMs > 0
      ? new KeyCache(board, { ttlMs: config.auth.keyCacheTtlMs, maxEntries: 10_000 })
      : undefined;
  const keys = new KeysService(database, clock, keyCache, audit);
  const queue = createJobQueue(database, {
    clock,
    pollIntervalMs: config.jobs.pollIntervalMs,
    maintenanceIntervalMs: config.jobs.maintenanceIntervalMs,
    completedRetentionMs: config.jobs.completedRetentionMs,
    failedRetentionMs: config.jobs.failedRetentionMs,
    pgBoss: { maxConnections: config.jobs.pgBossMaxConnections },
    onError: (error) => logger.error({ err: error }, "job queue error"),
  });

  const dns = new DnsResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
  const domainIntel = await createDomainIntel({
    config,
    dns,
    clock,
    logger,
    ...(options.websiteCa ? { ca: options.websiteCa } : {}),
  });
  const intelOptions = domainIntel ? { intel: domainIntel, intelBudgetMs: config.intel.budgetMs } : {};
  // Run by the serve and worker processes at start-up (server.ts); until then nothing is blocked.
  const connectSmtp = smtpConnector({ socksProxy: config.smtp.socksProxy });
  const smtpSelfCheck = new SmtpSelfCheck({
    dns,
    connectSmtp,
    heloName: config.smtp.heloName,
    probeHost: config.smtp.egressProbeHost,
    port: config.smtp.port,
    socksProxy: config.smtp.socksProxy,
    timeoutMs: config.smtp.connectTimeoutMs,
    now: () => clock.now(),
  });
  const meters = checkMeters(metrics);
  const emailEngine = new EmailEngine({
    ...intelOptions,
    onVerified: meters.onVerified,
    isEgressBlocked: () => smtpSelfCheck.isEgressBlocked(),
    m365PersonalSite: config.smtp.m365PersonalSiteCheck
      ? new M365PersonalSite({ headStatus: fetchHeadStatus(config.smtp.connectTimeoutMs) })
      : undefined,
    dns,
    clock,
    smtpPort: config.smtp.port,
    heloName: config.smtp.heloName,
    mailFrom: config.smtp.mailFrom,
    connectSmtp,
    connectTimeoutMs: config.smtp.connectTimeoutMs,
    commandTimeoutMs: config.smtp.commandTimeoutMs,
    totalDeadlineMs: config.smtp.totalDeadlineMs,
    maxConnectionsPerMx: config.smtp.maxConnectionsPerMx,
    // The SSRF guard covers SMTP probes too: an MX pointing at a private address is not probed.
    ...(config.allowPrivateTargets
      ? {}
      : { isAddressAllowed: (address: string) => classifyAddress(address) === null }),
  });
  const websiteEngine = new WebsiteEngine({
    ...intelOptions,
    onChecked: meters.onChecked,
    dns,
    client: new HttpClient({
      dns,
      allowPrivateTargets: config.allowPrivateTargets,
      httpPort: config.website.httpPort,
      httpsPort: config.website.httpsPort,
      ...(options.websiteCa ? { ca: options.websiteCa } : {}),
    }),
    clock,
    firstTryTimeoutMs: config.website.firstTryTimeoutMs,
    retryTimeoutMs: config.website.retryTimeoutMs,
    fallbackTimeoutMs: config.website.fallbackTimeoutMs,
    totalDeadlineMs: config.website.totalDeadlineMs,
  });
  const network = createNetworkHealth({ config, clock, logger, dns, smtpSelfCheck });
  // Every check made for a user goes through these: no DNS answer is a fact while DNS is distrusted.
  // A test data space's checks are scripted and never reach either (ADR 0051).
  const checkedEmail = new DataSpaceEmail({
    live: new NetworkGuardedEmail({ inner: emailEngine, dns: network.health }),
    test: new ScriptedEmail(),
  });
  const checkedWebsite = new DataSpaceWebsite({
    live: new NetworkGuardedWebsite({ inner: websiteEngine, dns: network.health, clock }),
    test: new ScriptedWebsite({ clock }),
  });
  const normalize: WebsiteNormalizer = (input) => {
    const n = normalizeWebsite(input);
    return n.ok ? { ok: true, url: n.url } : { ok: false, message: n.message };
  };
  const validator = new LeadValidator({ email: checkedEmail, website: checkedWebsite, websiteScore });
  const leadValidation = new LeadValidationService({
    database,
    events,
    clock,
    validator,
    leads: new LeadsRepo(),
  });
  let adHocCallback: (url: string, payload: Record<string, unknown>) => Promise<void> = async () => {};
  const batches = new BatchesService({
    database,
    credits,
    events,
    clock,
    queue,
    limits: new BatchLimits({ clock, limits: config.limits }),
    leadValidation,
    normalizeWebsite: normalize,
    prices: config.prices,
  });
  const batchRunner = new BatchRunner({
    database,
    events,
    clock,
    leadValidation,
    website: checkedWebsite,
    chunkSize: config.limits.batchChunkSize,
    sendCallback: (url, payload) => adHocCallback(url, payload),
    onError: logError,
  });
  // SQLite's search index follows the writes (ADR 0015); PostgreSQL's GIN index needs no help.
  const searchIndexer =
    database.caps.leadSearch === "fts5_trigram"
      ? new LeadSearchIndexer({ database, events, onError: logError })
      : undefined;
  const leads = new LeadsService({
    database,
    credits,
    events,
    clock,
    normalizeWebsite: normalize,
    scheduler: batches,
    prices: config.prices,
    // An erased address does not come back (issue 25): create, import and syncs ask first.
    suppression: erasure,
  });
  const websiteChecks = new WebsiteChecksService({
    credits,
    website: checkedWebsite,
    normalizeWebsite: normalize,
    priceMilli: config.prices.websiteCheck,
  });
  const emailChecks = new EmailChecksService({
    database,
    jobs: new ValidationJobsRepo(database.db),
    credits,
    clock,
    queue,
    email: checkedEmail,
    priceMilli: config.prices.emailCheck,
    retryDelayCapMs: config.smtp.retryDelayCapMs,
    sendCallback: (url, payload) => adHocCallback(url, payload),
    events,
    onError: logError,
  });
  const { webhooks, jobDefinitions: webhookJobs } = createWebhooks({
    config,
    database,
    queue,
    clock,
    events,
    outbox,
    client: new HttpClient({
      dns,
      allowPrivateTargets: config.allowPrivateTargets,
      userAgent: `leadcheck-webhooks/${API_VERSION}`,
    }),
    onAttempt: (outcome) => metrics.webhookDeliveries.inc({ outcome }),
    onError: logError,
    audit,
  });
  // Ad-hoc `webhookUrl` callbacks (check-email, lead validate): unsigned, once, through the guard.
  adHocCallback = async (url, payload) => {
    await webhooks.sendAdHocCallback(url, payload);
  };
  const integrations = createIntegrations({ config, database, clock, dns, queue, events, leads, batches });
  const { widget } = createWidget({
    config: config.widget,
    priceMilli: config.prices.emailCheck,
    credits,
    keys,
    email: emailEngine,
    redis,
    clock,
    isUniqueViolation: database.caps.isUniqueViolation,
    onError: logError,
  });
  const { retention, jobDefinitions: retentionJobs } = createRetention({
    config,
    database,
    clock,
    queue,
    audit,
    onPurged: (accountId, counts) => logger.info({ accountId, ...counts }, "retention purge"),
  });
  const { services: revalidationServices, jobs: revalidationJobs } = createRevalidation({
    config,
    database,
    clock,
    queue,
    leads,
    batches,
    audit,
    isNetworkDown: () => config.network.refuseWhenDown && network.health.dnsDown() !== undefined,
    onRun: (result) => logger.info(result, "re-validation run"),
  });
  const { accountExport, jobDefinitions: exportJobs } = createAccountExport({
    database,
    clock,
    queue,
    audit,
  });
  const { services: teamServices, jobs: teamJobs } = createTeams({ database, clock, audit });
  const sweeper = new StalledWorkSweeper({
    database,
    clock,
    queue,
    batchRunner,
    leadValidation,
    emailChecks,
    settings: config.jobs,
    onClosed: (kind, id, reason) => {
      metrics.sweeperClosed.inc({ kind });
      logger.warn({ kind, id, reason }, "sweeper closed work left processing");
    },
  });
  const jobCatalog: JobDefinition[] = meterJobs(
    metrics,
    withExpiryOverrides(config.jobs.expiryOverridesMs, [
      ...batchJobDefinitions(batchRunner, queue),
      ...leadValidationJobs(leadValidation),
      ...emailChecks.jobDefinitions(),
      ...webhookJobs,
      ...integrations.jobs,
      ...retentionJobs,
      ...revalidationJobs,
      ...exportJobs,
      ...teamJobs,
      sweeper.jobDefinition(),
    ]),
  );
  metrics.watchQueue(queue, () => jobCatalog.map((job) => job.name));
  return {
    config,
    clock,
    database,
    events,
    credits,
    payments,
    keys,
    identity,
    signin,
    redis,
    dns,
    domainIntel,
    emailEngine,
    smtpSelfCheck,
    networkHealth: network.health,
    websiteEngine,
    normalizeWebsite: normalize,
    leads,
    searchIndexer,
    batches,
    batchRunner,
    leadValidation,
    usage: new UsageService({ database, clock }),
    leadActions: new LeadBulkActions({ database, events, clock }),
    emailChecks,
    websiteChecks,
    webhooks,
    integrations: integrations.services,
    widget,
    audit,
    erasure,
    retention,
    revalidation: revalidationServices.revalidation,
    accountExport,
    teams: teamServices.teams,
    sso: new SsoService(
      {
        ...config.oidc,
        redirectUrl:
          config.oidc.redirectUrl ??
          `${(config.payments.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, "")}/v1/auth/sso/callback`,
      },
      new SsoRepo(database),
      clock,
    ),
    sweeper,
    queue,
    jobCatalog,
    metrics,
    logger,
    lifecycle: { shuttingDown: false },
    async close() {
      webhooks.close();
      await searchIndexer?.close();
      await queue
        .stop({ graceful: false, timeoutMs: 0 })
        .catch((error: unknown) => logError(error, "job queue did not stop cleanly"));
      network.close();
      await emailEngine.close();
      dns.close();
      redis?.disconnect();
      await database.close();
    },
  };
}

/** Stripe when both of its keys are set (its library loads only then); otherwise buying is off and
 *  operators grant credits. */
async function paymentGateway(config: Readonly<Config>): Promise<PaymentGateway | undefined> {
  const { stripeSecretKey, stripeWebhookSecret, stripeApiUrl } = config.payments;
  if (!stripeSecretKey || !stripeWebhookSecret) return undefined;
  const { StripeGateway } = await import("./payments/stripe-gateway.js");
  return new StripeGateway({
    secretKey: stripeSecretKey,
    webhookSecret: stripeWebhookSecret,
    apiUrl: stripeApiUrl,
  });
}

/** Starts the queue (pg-boss creates its schema here) and defines every queue of the catalog. */
export async function startQueue(services: Services): Promise<void> {
  // Serve and worker start here: stored connections with no key to open them stop both.
  await services.integrations.connections.assertCanOpenStoredCredentials();
  await services.queue.start();
  for (const job of services.jobCatalog) {
    await services.queue.define(job.name, job.policy, { deadLetter: job.onExhausted !== undefined });
  }
  await services.webhooks.scheduleRecurring();
  await scheduleRetentionPurge(services.queue);
  await scheduleRevalidation(services.queue);
}

/** JOB_EXPIRY_MS: an operator (or a test) shortens how long a dead worker's job stays claimed. */
function withExpiryOverrides(overrides: Record<string, number>, catalog: JobDefinition[]): JobDefinition[] {
  return catalog.map((job) => {
    const expireInMs = overrides[job.name];
    return expireInMs === undefined ? job : { ...job, policy: { ...job.policy, expireInMs } };
  });
}

export function buildHttpApp(services: Services, logger?: pino.Logger): Promise<App> {
  return buildApp({ ...services, logger, queueReady: () => services.queue.ping() });
}

/** An error handler that logs each distinct message at most once per `windowMs`. */
function logRepeatedErrorOnce(logger: pino.Logger, message: string, windowMs: number) {
  const lastLogged = new Map<string, number>();
  return (error: Error) => {
    const now = Date.now();
    if (now - (lastLogged.get(error.message) ?? -Infinity) < windowMs) return;
    if (lastLogged.size > 100) lastLogged.clear();
    lastLogged.set(error.message, now);
    logger.warn({ err: error }, message);
  };
}

/** JSON lines; pretty-printed (pino-pretty) when stdout is a terminal, unless `pretty` says otherwise. */
export function createLogger(config: Readonly<Config>, options: { pretty?: boolean } = {}): pino.Logger {
  const settings = {
    level: config.logLevel,
    redact: [
      "req.headers.authorization",
      'req.headers["x-api-key"]',
      "*.secret",
      "*.api_key",
      "*.accessToken",
      "*.private_key",
      "*.serviceAccount",
    ],
  };
  return (options.pretty ?? process.stdout.isTTY === true) ? pino(settings, prettyStream()) : pino(settings);
}
