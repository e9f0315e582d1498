// One schema over process.env, parsed once and frozen. Every tunable of the service lives here,
// with units in the names. Defaults follow the product decisions (§1 operating contract).
import { hostname } from "node:os";
import { loadOidcConfig, type OidcConfig } from "../accounts/oidc-config.js";
import { type Canary, DEFAULT_CANARY_NAMES, parseCanaries } from "../net/network-health.js";
import { ConfigError } from "./config-error.js";
import { DEFAULT_DNSBL_DOMAIN_ZONES, DEFAULT_DNSBL_IP_ZONES, parseZones } from "./dnsbl-zones.js";
import { loadWidgetConfig, type WidgetConfig } from "./widget-config.js";

export { ConfigError } from "./config-error.js";

export type DatabaseKind = "sqlite" | "postgres";

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  databaseKind: DatabaseKind;
  /** Connections of this process's PostgreSQL pool (pg-boss keeps its own, PGBOSS_MAX_CONNECTIONS). */
  databasePoolMax: number;
  /** PostgreSQL: longest wait for a pool connection (pg's connectionTimeoutMillis); 0 waits forever. */
  databaseConnectTimeoutMs: number;
  /** PostgreSQL: statement_timeout of every session; a longer query is cancelled. 0: none. */
  databaseStatementTimeoutMs: number;
  redisUrl: string | undefined;
  logLevel: string;
  auth: {
    jwksUrl: string | undefined;
    issuer: string | undefined;
    audience: string | undefined;
    jwtSecret: string | undefined;
    adminToken: string | undefined;
    /** How long an API key may be served from an instance's cache (Redis deployments); 0: never. */
    keyCacheTtlMs: number;
  };
  /** Resolvers ("ip" or "ip:port"); empty means the system's. */
  dnsServers: string[];
  dnsTimeoutMs: number;
  smtp: {
    port: number;
    heloName: string;
    mailFrom: string;
    socksProxy: string | undefined;
    connectTimeoutMs: number;
    commandTimeoutMs: number;
    totalDeadlineMs: number;
    maxConnectionsPerMx: number;
    /** Longest wait before a temporary (greylisted) answer is retried. */
    retryDelayCapMs: number;
    /** Start-up egress check: the public MX host whose port 25 must be reachable. */
    egressProbeHost: string;
    /** Run the egress and HELO identity self-checks when a process starts. */
    selfCheck: boolean;
    /** Ask Microsoft 365 personal sites to confirm mailboxes of accept-all tenants (positive only). */
    m365PersonalSiteCheck: boolean;
  };
  /** Resolver and SMTP egress health (ADR 0020). */
  network: {
    /** Watch the paths in `serve` and `worker` (NETWORK_CHECK); tests of other things turn it off. */
    check: boolean;
    /** DNS_CANARY_NAMES: lookups no working resolver fails all at once. */
    canaries: Canary[];
    /** DNS_CANARY_TIMEOUT_MS: one canary lookup's whole budget; DNS_TIMEOUT_MS by default. */
    canaryTimeoutMs: number;
    /** Between rounds of canaries and the egress check; 0: only at start-up. */
    intervalMs: number;
    /** Answer a check 503 before any debit when every path it needs is known down. */
    refuseWhenDown: boolean;
  };
  allowPrivateTargets: boolean;
  /** Prices in milli-credits (1 milli-credit = 0.001 stored credits = 1 display credit). */
  prices: {
    websiteCheck: number;
    emailCheck: number;
    leadCreateWithValidation: number;
    leadValidation: number;
    domainBatchItem: number;
  };
  newAccountMilliCredits: number;
  rateLimits: {
    globalPerMinute: number;
    globalPerHour: number;
    /** Per-endpoint limits keyed by "METHOD /route/pattern", per minute. */
    perEndpointPerMinute: Record<string, number>;
  };
  limits: {
    maxBodyBytes: number;
    maxConcurrentBatches: number;
    maxValidationsPerDay: number;
    /** Batch items one job takes at a time. */
    batchChunkSize: number;
  };
  worker: {
    /** Run the embedded worker inside `serve`. */
    embedded: boolean;
    /** `leadcheck worker` serves /health, /liveness, /readiness and /metrics here; unset: none. */
    port: number | undefined;
  };
  website: {
    firstTryTimeoutMs: number;
    retryTimeoutMs: number;
    fallbackTimeoutMs: number;
    totalDeadlineMs: number;
    /** Ports for URLs that name none; changed only for tests. */
    httpPort: number;
    httpsPort: number;
  };
  jobs: {
    pollIntervalMs: number;
    /** Expiry of jobs a dead worker held (lost onExhausted hooks too): pg-boss's maintenance,
     *  once per interval across all processes, and the SQLite runner's lease expiry. */
    maintenanceIntervalMs: number;
    completedRetentionMs: number;
    failedRetentionMs: number;
    pgBossMaxConnections: number;
    /** Per-queue expiry overrides ("batch.run" -> ms): how soon a dead worker's job is retried. */
    expiryOverridesMs: Record<string, number>;
    /** The safety net behind onExhausted: how often work left `processing` is looked for. */
    sweepIntervalMs: number;
    /** A batch with no item finished for this long is closed (its items failed). */
    batchStallMs: number;
    /** A lead `processing` outside any running batch, untouched this long, is closed `risky`. */
    leadStallMs: number;
    /** A validation job this long past its 5-minute deadline is closed `timeout`. */
    validationJobGraceMs: number;
    /** How often due re-validation schedules are looked for (src/revalidation). */
    revalidationTickMs: number;
  };
  webhooks: {
    /** Whole budget of one delivery attempt (connect, send, response headers and body). */
    timeoutMs: number;
    /** Receiver response bodies are kept up to this many bytes in delivery records. */
    responseBodyMaxBytes: number;
    /** Delivery attempts running at once in one worker process. */
    deliveryConcurrency: number;
    /** Safety-net sweep of the event outbox; new events are normally dispatched at once. */
    dispatchIntervalMs: number;
    deliveryRetentionDays: number;
    purgeIntervalMs: number;
  };
  /** Domain intelligence (docs/decisions/0012): RDAP registration, DNS block lists, mail records. */
  intel: {
    enabled: boolean;
    /** Longest a check waits for domain facts, counted from the check's start. */
    budgetMs: number;
    rdapTimeoutMs: number;
    /** A file path or http(s) URL of an IANA RDAP bootstrap file; unset: the vendored snapshot. */
    rdapBootstrapUrl: string | undefined;
    /** Domain block lists (`<domain>.<zone>`); empty: none. */
    dnsblDomainZones: string[];
    /** Address block lists for MX hosts (`<reversed ip>.<zone>`); empty: none. */
    dnsblIpZones: string[];
  };
  payments: {
    /** Stripe secret key (sk_...); buying credits is on only with it and the webhook secret. */
    stripeSecretKey: string | undefined;
    /** Signing secret (whsec_...) of the Stripe webhook endpoint /v1/payments/stripe/webhook. */
    stripeWebhookSecret: string | undefined;
    /** Where the Stripe library sends its requests; unset: Stripe's API (tests point it at a local fake). */
    stripeApiUrl: string | undefined;
    /** ISO 4217 code, lower case; 1 unit of it buys 1,000 validations (1 stored credit). */
    currency: string;
    /** Smallest purchase in whole currency units. */
    minimumAmount: number;
    /** Largest purchase in whole currency units. */
    maximumAmount: number;
    /** Public origin of the dashboard for Checkout's return URLs (unset: the request's own origin) and
     *  the OpenAPI document's server (unset: http://localhost:8080). */
    publicUrl: string | undefined;
  };
  /** Google Sheets and HubSpot (src/integrations, docs/decisions/0030). */
  integrations: {
    /** The Sheets client's rootUrl (GOOGLE_SHEETS_API_URL). */
    googleSheetsApiUrl: string;
    /** Where service-account JWTs are exchanged for tokens, and their audience (GOOGLE_OAUTH_TOKEN_URL). */
    googleOAuthTokenUrl: string;
    /** The HubSpot client's basePath (HUBSPOT_API_URL). */
    hubspotApiUrl: string;
    /** Encrypts stored credentials (LEADCHECK_SECRET_KEY, at least 32 characters). */
    secretKey: string | undefined;
    /** HubSpot's per-account rolling limit: requests per window (100 per 10 s). */
    hubspotRequestsPerWindow: number;
    hubspotWindowMs: number;
    /** Google's per-user limits: read requests, and write requests, each so many per window
     *  (60 per minute of each). */
    googleRequestsPerWindow: number;
    googleWindowMs: number;
    /** Retries of one call after a 429 or 5xx, with jittered exponential backoff. */
    retryLimit: number;
    retryBaseDelayMs: number;
    retryMaxDelayMs: number;
    requestTimeoutMs: number;
    /** How often a sync waiting for its validation batch looks again. */
    syncPollMs: number;
    /** Sheet rows written per values.batchUpdate (each after its own re-read of the sheet). */
    sheetWriteRows: number;
    /** The length of a watch's "minute" (tests shorten it). */
    watchMinuteMs: number;
  };
  /** The signup-form widget and publishable keys (src/widget/, docs/widget.md). */
  widget: WidgetConfig;
  /** Data lifecycle (issue 25, docs/data-protection.md). */
  privacy: {
    /** Key of the tombstones' email HMAC (LEADCHECK_SECRET_KEY, else AUTH_JWT_SECRET); none: no suppression. */
    hmacKey: string | undefined;
    /** Retention defaults in days (0: keep forever) for accounts that set none. */
    archivedLeadDays: number;
    batchItemDays: number;
    deliveryBodyDays: number;
    auditDays: number;
    /** How often the retention purge runs. */
    purgeIntervalMs: number;
    /** Rows per purge statement. */
    purgeChunk: number;
  };
  /** Dashboard single sign-on over OpenID Connect (src/accounts/oidc-config.ts). */
  oidc: OidcConfig;
  shutdownTimeoutMs: number;
  /** After SIGTERM, readiness answers 503 this long before the listener closes (load balancers
   *  stop sending first). */
  shutdownDrainMs: number;
}

type Env = Record<string, string | undefined>;

/** On by default (ADR 0012): Spamhaus's domain and address lists, whose refusal answers we read as
 *  unknown (never listed) and report once, so a resolver Spamhaus refuses costs nothing but a warning. */

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return n;
}

function canaryNames(env: Env): Canary[] {
  try {
    return parseCanaries(str(env, "DNS_CANARY_NAMES") ?? DEFAULT_CANARY_NAMES);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function str(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === "" ? undefined : raw;
}

/** Seed limits (spec "Limits"), keyed by Fastify route pattern. */
export const DEFAULT_ENDPOINT_LIMITS_PER_MINUTE: Readonly<Record<string, number>> = Object.freeze({
  "POST /v1/leads": 10,
  "GET /v1/leads": 30,
  "GET /v1/leads/:leadId": 30,
  "PUT /v1/leads/:leadId": 10,
  "POST /v1/leads/validate": 5,
  "POST /v1/leads/bulk": 2,
  "POST /v1/check-website": 10,
  "POST /v1/check": 10,
  "POST /v1/check-email": 10,
});

function databaseKindOf(url: string): DatabaseKind {
  if (url.startsWith("sqlite:")) return "sqlite";
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return "postgres";
  throw new ConfigError(`DATABASE_URL must start with sqlite: or postgres://, got "${url}"`);
}

/** RATE_LIMIT_ENDPOINTS="POST /v1/leads=100,GET /v1/leads=500" overrides per-endpoint limits. */
function endpointLimits(env: Env): Record<string, number> {
  const limits: Record<string, number> = { ...DEFAULT_ENDPOINT_LIMITS_PER_MINUTE };
  const raw = str(env, "RATE_LIMIT_ENDPOINTS");
  if (!raw) return limits;
  for (const part of raw.split(",")) {
    const eq = part.lastIndexOf("=");
    const key = part.slice(0, eq).trim();
    const n = Number(part.slice(eq + 1));
    if (eq < 0 || !/^[A-Z]+ \//.test(key) || !Number.isInteger(n) || n < 1) {
      throw new ConfigError(`RATE_LIMIT_ENDPOINTS entry "${part}" must look like "POST /v1/leads=10"`);
    }
    limits[key] = n;
  }
  return limits;
}

/** JOB_EXPIRY_MS="batch.run=30000,email.verify=60000" overrides job kinds' expiry. */
function jobExpiryOverrides(env: Env): Record<string, number> {
  const overrides: Record<string, number> = {};
  const raw = str(env, "JOB_EXPIRY_MS");
  if (!raw) return overrides;
  for (const part of raw.split(",")) {
    const eq = part.lastIndexOf("=");
    const name = part.slice(0, eq).trim();
    const n = Number(part.slice(eq + 1));
    if (eq < 1 || !Number.isInteger(n) || n < 1000) {
      throw new ConfigError(`JOB_EXPIRY_MS entry "${part}" must look like "batch.run=30000" (ms >= 1000)`);
    }
    overrides[name] = n;
  }
  return overrides;
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return url.origin;
}

/** An http(s) URL kept whole (path included): API roots and token endpoints. */
function fullHttpUrl(env: Env, name: string): string | undefined {
  const origin = httpUrl(env, name);
  return origin === undefined ? undefined : new URL(str(env, name)!).toString();
}

function secretKey(env: Env): string | undefined {
  const raw = str(env, "LEADCHECK_SECRET_KEY");
  if (raw !== undefined && raw.length < 32)
    throw new ConfigError("LEADCHECK_SECRET_KEY must be at least 32 characters");
  return raw;
}

function currencyCode(env: Env): string {
  const raw = (str(env, "PAYMENT_CURRENCY") ?? "usd").toLowerCase();
  if (!/^[a-z]{3}$/.test(raw))
    throw new ConfigError(`PAYMENT_CURRENCY must be an ISO 4217 code, got "${raw}"`);
  return raw;
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const databaseUrl = str(env, "DATABASE_URL") ?? "sqlite:./data/leadcheck.db";
  const heloName = str(env, "SMTP_HELO_NAME") ?? hostname();
  const config: Config = {
    port: int(env, "PORT", 8080),
    host: str(env, "HOST") ?? "0.0.0.0",
    databaseUrl,
    databaseKind: databaseKindOf(databaseUrl),
    databasePoolMax: int(env, "DATABASE_POOL_MAX", 20, 1),
    databaseConnectTimeoutMs: int(env, "DATABASE_CONNECT_TIMEOUT_MS", 20_000, 0),
    databaseStatementTimeoutMs: int(env, "DATABASE_STATEMENT_TIMEOUT_MS", 30_000, 0),
    redisUrl: str(env, "REDIS_URL"),
    logLevel: str(env, "LOG_LEVEL") ?? (env.NODE_ENV === "test" ? "silent" : "info"),
    auth: {
      jwksUrl: str(env, "AUTH_JWKS_URL"),
      issuer: str(env, "AUTH_ISSUER"),
      audience: str(env, "AUTH_AUDIENCE"),
      jwtSecret: str(env, "AUTH_JWT_SECRET"),
      adminToken: str(env, "ADMIN_TOKEN"),
      keyCacheTtlMs: int(env, "API_KEY_CACHE_TTL_MS", 60_000, 0),
    },
    dnsServers: (str(env, "DNS_SERVERS") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    dnsTimeoutMs: int(env, "DNS_TIMEOUT_MS", 2000, 1),
    smtp: {
      port: int(env, "SMTP_PORT", 25, 1),
      heloName,
      mailFrom: str(env, "SMTP_MAIL_FROM") ?? `verify@${heloName}`,
      socksProxy: str(env, "SMTP_SOCKS_PROXY"),
      connectTimeoutMs: int(env, "SMTP_CONNECT_TIMEOUT_MS", 10_000, 1),
      commandTimeoutMs: int(env, "SMTP_COMMAND_TIMEOUT_MS", 15_000, 1),
      totalDeadlineMs: int(env, "SMTP_TOTAL_DEADLINE_MS", 60_000, 1),
      maxConnectionsPerMx: int(env, "SMTP_MAX_CONNECTIONS_PER_MX", 3, 1),
      retryDelayCapMs: int(env, "EMAIL_RETRY_DELAY_CAP_MS", 240_000, 100),
      egressProbeHost: str(env, "SMTP_EGRESS_PROBE_HOST") ?? "gmail-smtp-in.l.google.com",
      selfCheck: bool(env, "SMTP_SELF_CHECK", true),
      m365PersonalSiteCheck: bool(env, "EMAIL_M365_PERSONAL_SITE_CHECK", false),
    },
    network: {
      check: bool(env, "NETWORK_CHECK", true),
      canaries: canaryNames(env),
      canaryTimeoutMs: int(env, "DNS_CANARY_TIMEOUT_MS", int(env, "DNS_TIMEOUT_MS", 2000, 1), 1),
      intervalMs: int(env, "NETWORK_CHECK_INTERVAL_MS", 60_000, 0),
      refuseWhenDown: bool(env, "REFUSE_WHEN_NETWORK_DOWN", true),
    },
    allowPrivateTargets: bool(env, "ALLOW_PRIVATE_TARGETS", false),
    prices: {
      websiteCheck: int(env, "PRICE_WEBSITE_CHECK_MILLI", 1),
      emailCheck: int(env, "PRICE_EMAIL_CHECK_MILLI", 1),
      leadCreateWithValidation: int(env, "PRICE_LEAD_CREATE_VALIDATED_MILLI", 2),
      leadValidation: int(env, "PRICE_LEAD_VALIDATION_MILLI", 2),
      domainBatchItem: int(env, "PRICE_DOMAIN_BATCH_ITEM_MILLI", 1),
    },
    newAccountMilliCredits: int(env, "NEW_ACCOUNT_MILLI_CREDITS", 2000),
    rateLimits: {
      globalPerMinute: int(env, "RATE_LIMIT_PER_MINUTE", 60, 1),
      globalPerHour: int(env, "RATE_LIMIT_PER_HOUR", 1000, 1),
      perEndpointPerMinute: endpointLimits(env),
    },
    limits: {
      maxBodyBytes: int(env, "MAX_BODY_BYTES", 5 * 1024 * 1024, 1024),
      maxConcurrentBatches: int(env, "MAX_CONCURRENT_BATCHES", 3, 1),
      maxValidationsPerDay: int(env, "MAX_VALIDATIONS_PER_DAY", 100_000, 1),
      batchChunkSize: int(env, "BATCH_CHUNK_SIZE", 500, 1),
    },
    worker: {
      embedded: bool(env, "EMBEDDED_WORKER", true),
      port: str(env, "WORKER_PORT") === undefined ? undefined : int(env, "WORKER_PORT", 0),
    },
    website: {
      firstTryTimeoutMs: int(env, "WEBSITE_FIRST_TRY_TIMEOUT_MS", 10_000, 1),
      retryTimeoutMs: int(env, "WEBSITE_RETRY_TIMEOUT_MS", 20_000, 1),
      fallbackTimeoutMs: int(env, "WEBSITE_FALLBACK_TIMEOUT_MS", 15_000, 1),
      totalDeadlineMs: int(env, "WEBSITE_TOTAL_DEADLINE_MS", 30_000, 1),
      httpPort: int(env, "WEBSITE_HTTP_PORT", 80, 1),
      httpsPort: int(env, "WEBSITE_HTTPS_PORT", 443, 1),
    },
    jobs: {
      pollIntervalMs: int(env, "JOB_POLL_INTERVAL_MS", 250, 10),
      maintenanceIntervalMs: int(env, "JOB_MAINTENANCE_INTERVAL_MS", 30_000, 100),
      completedRetentionMs: int(env, "JOB_COMPLETED_RETENTION_MS", 24 * 3600_000, 0),
      failedRetentionMs: int(env, "JOB_FAILED_RETENTION_MS", 7 * 24 * 3600_000, 0),
      pgBossMaxConnections: int(env, "PGBOSS_MAX_CONNECTIONS", 4, 1),
      expiryOverridesMs: jobExpiryOverrides(env),
      sweepIntervalMs: int(env, "SWEEP_INTERVAL_MS", 60_000, 100),
      batchStallMs: int(env, "SWEEP_BATCH_STALL_MS", 30 * 60_000, 1000),
      leadStallMs: int(env, "SWEEP_LEAD_STALL_MS", 2 * 3600_000, 1000),
      validationJobGraceMs: int(env, "SWEEP_VALIDATION_JOB_GRACE_MS", 10 * 60_000, 0),
      revalidationTickMs: int(env, "REVALIDATION_TICK_MS", 5 * 60_000, 100),
    },
    webhooks: {
      timeoutMs: int(env, "WEBHOOK_TIMEOUT_MS", 30_000, 1),
      responseBodyMaxBytes: int(env, "WEBHOOK_RESPONSE_BODY_MAX_BYTES", 4096, 0),
      deliveryConcurrency: int(env, "WEBHOOK_DELIVERY_CONCURRENCY", 25, 1),
      dispatchIntervalMs: int(env, "WEBHOOK_DISPATCH_INTERVAL_MS", 5000, 10),
      deliveryRetentionDays: int(env, "WEBHOOK_DELIVERY_RETENTION_DAYS", 30, 1),
      purgeIntervalMs: int(env, "WEBHOOK_PURGE_INTERVAL_MS", 3_600_000, 1000),
    },
    intel: {
      enabled: bool(env, "DOMAIN_INTEL", true),
      budgetMs: int(env, "DOMAIN_INTEL_BUDGET_MS", 3000, 0),
      rdapTimeoutMs: int(env, "RDAP_TIMEOUT_MS", 2500, 1),
      rdapBootstrapUrl: str(env, "RDAP_BOOTSTRAP_URL"),
      dnsblDomainZones: parseZones(env.DNSBL_DOMAIN_ZONES, DEFAULT_DNSBL_DOMAIN_ZONES),
      dnsblIpZones: parseZones(env.DNSBL_IP_ZONES, DEFAULT_DNSBL_IP_ZONES),
    },
    payments: {
      stripeSecretKey: str(env, "STRIPE_SECRET_KEY"),
      stripeWebhookSecret: str(env, "STRIPE_WEBHOOK_SECRET"),
      stripeApiUrl: httpUrl(env, "STRIPE_API_URL"),
      currency: currencyCode(env),
      minimumAmount: int(env, "PAYMENT_MIN_AMOUNT", 5, 1),
      maximumAmount: int(env, "PAYMENT_MAX_AMOUNT", 10_000, 1),
      publicUrl: httpUrl(env, "PUBLIC_URL"),
    },
    integrations: {
      googleSheetsApiUrl: fullHttpUrl(env, "GOOGLE_SHEETS_API_URL") ?? "https://sheets.googleapis.com/",
      googleOAuthTokenUrl:
        fullHttpUrl(env, "GOOGLE_OAUTH_TOKEN_URL") ?? "https://oauth2.googleapis.com/token",
      hubspotApiUrl: (fullHttpUrl(env, "HUBSPOT_API_URL") ?? "https://api.hubapi.com").replace(/\/+$/, ""),
      secretKey: secretKey(env),
      hubspotRequestsPerWindow: int(env, "HUBSPOT_REQUESTS_PER_WINDOW", 100, 1),
      hubspotWindowMs: int(env, "HUBSPOT_WINDOW_MS", 10_000, 1),
      googleRequestsPerWindow: int(env, "GOOGLE_REQUESTS_PER_WINDOW", 60, 1),
      googleWindowMs: int(env, "GOOGLE_WINDOW_MS", 60_000, 1),
      retryLimit: int(env, "INTEGRATION_RETRY_LIMIT", 6, 0),
      retryBaseDelayMs: int(env, "INTEGRATION_RETRY_BASE_DELAY_MS", 1000, 1),
      retryMaxDelayMs: int(env, "INTEGRATION_RETRY_MAX_DELAY_MS", 60_000, 1),
      requestTimeoutMs: int(env, "INTEGRATION_REQUEST_TIMEOUT_MS", 30_000, 1),
      syncPollMs: int(env, "SYNC_POLL_INTERVAL_MS", 2000, 10),
      sheetWriteRows: int(env, "SYNC_SHEET_WRITE_ROWS", 2000, 1),
      watchMinuteMs: int(env, "WATCH_MINUTE_MS", 60_000, 1),
    },
    widget: loadWidgetConfig(env),
    privacy: {
      hmacKey: str(env, "LEADCHECK_SECRET_KEY") ?? str(env, "AUTH_JWT_SECRET"),
      archivedLeadDays: int(env, "RETENTION_ARCHIVED_LEAD_DAYS", 0, 0),
      batchItemDays: int(env, "RETENTION_BATCH_ITEM_DAYS", 0, 0),
      deliveryBodyDays: int(env, "RETENTION_DELIVERY_BODY_DAYS", 30, 0),
      auditDays: int(env, "AUDIT_RETENTION_DAYS", 365, 0),
      purgeIntervalMs: int(env, "RETENTION_PURGE_INTERVAL_MS", 24 * 3_600_000, 1000),
      purgeChunk: int(env, "RETENTION_PURGE_CHUNK", 500, 1),
    },
    oidc: loadOidcConfig(env),
    shutdownTimeoutMs: int(env, "SHUTDOWN_TIMEOUT_MS", 25_000, 0),
    shutdownDrainMs: int(env, "SHUTDOWN_DRAIN_MS", 0, 0),
  };
  return Object.freeze(config);
}
