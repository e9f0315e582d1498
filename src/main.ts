// Wires config -> storage -> services -> HTTP app / worker. The CLI (src/cli/main.ts) and the
// tests build the service through these functions, so every entry point runs the same wiring.
import { Redis } from "ioredis";
import pino from "pino";
import { IdentityVerifier } from "./accounts/identity.js";
import type { Config } from "./config/config.js";
import { CreditsService } from "./credits/credits.service.js";
import { EventBus } from "./events/events.js";
import { type App, buildApp } from "./http/app.js";
import type { JobDefinition } from "./jobs/catalog.js";
import { createJobQueue, type JobQueue } from "./jobs/index.js";
import { KeysService } from "./keys/keys.service.js";
import { type Clock, systemClock } from "./lib/clock.js";
import { type Database, migrateToLatest, openDatabase } from "./storage/db.js";

export interface Services {
  config: Readonly<Config>;
  clock: Clock;
  database: Database;
  events: EventBus;
  credits: CreditsService;
  keys: KeysService;
  identity: IdentityVerifier;
  redis: Redis | undefined;
  queue: JobQueue;
  /** Every background job kind with its policy and handler (see src/jobs/catalog.ts). */
  jobCatalog: JobDefinition[];
  logger: pino.Logger;
  lifecycle: { shuttingDown: boolean };
  close(): Promise<void>;
}

export async function createServices(
  config: Readonly<Config>,
  options: { clock?: Clock; migrate?: boolean; logger?: pino.Logger } = {},
): Promise<Services> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config);
  const database = openDatabase(config.databaseUrl);
  if (options.migrate !== false) await migrateToLatest(database.db);
  const events = new EventBus();
  const credits = new CreditsService({
    database,
    events,
    clock,
    newAccountMilliCredits: config.newAccountMilliCredits,
  });
  const keys = new KeysService(database.db, clock);
  const identity = new IdentityVerifier(config.auth);
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: false, lazyConnect: false })
    : undefined;
  redis?.on("error", () => {}); // the rate limiter falls back to memory; readiness reports the rest
  const queue = createJobQueue(database, {
    clock,
    onError: (error) => logger.error({ err: error }, "job queue error"),
  });
  const jobCatalog: JobDefinition[] = [];
  return {
    config,
    clock,
    database,
    events,
    credits,
    keys,
    identity,
    redis,
    queue,
    jobCatalog,
    logger,
    lifecycle: { shuttingDown: false },
    async close() {
      await queue.stop({ graceful: false, timeoutMs: 0 }).catch(() => {});
      redis?.disconnect();
      await database.close();
    },
  };
}

/** Starts the queue (pg-boss creates its schema here) and defines every queue of the catalog. */
export async function startQueue(services: Services): Promise<void> {
  await services.queue.start();
  for (const job of services.jobCatalog) await services.queue.define(job.name, job.policy);
}

export function buildHttpApp(services: Services, logger?: pino.Logger): Promise<App> {
  return buildApp({ ...services, logger, queueReady: () => services.queue.ping() });
}

export function createLogger(config: Readonly<Config>): pino.Logger {
  return pino({
    level: config.logLevel,
    redact: ["req.headers.authorization", 'req.headers["x-api-key"]', "*.secret", "*.api_key"],
  });
}
