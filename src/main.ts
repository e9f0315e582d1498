// Wires config -> storage -> services -> HTTP app / worker. The CLI (src/cli/main.ts) and the
// tests build the service through these functions, so every entry point runs the same wiring.
import { Redis } from "ioredis";
import pino from "pino";
import { IdentityVerifier } from "./accounts/identity.js";
import type { Config } from "./config/config.js";
import { CreditsService } from "./credits/credits.service.js";
import { EventBus } from "./events/events.js";
import { type App, buildApp } from "./http/app.js";
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
  lifecycle: { shuttingDown: boolean };
  close(): Promise<void>;
}

export async function createServices(
  config: Readonly<Config>,
  options: { clock?: Clock; migrate?: boolean } = {},
): Promise<Services> {
  const clock = options.clock ?? systemClock;
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
  return {
    config,
    clock,
    database,
    events,
    credits,
    keys,
    identity,
    redis,
    lifecycle: { shuttingDown: false },
    async close() {
      redis?.disconnect();
      await database.close();
    },
  };
}

export function buildHttpApp(services: Services, logger?: pino.Logger): Promise<App> {
  return buildApp({ ...services, logger });
}

export function createLogger(config: Readonly<Config>): pino.Logger {
  return pino({
    level: config.logLevel,
    redact: ["req.headers.authorization", 'req.headers["x-api-key"]', "*.secret", "*.api_key"],
  });
}
