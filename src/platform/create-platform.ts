// What every module stands on, built once per process: the clock and the logger, the database
// (migrated unless told not to), the events bus over its outbox, the job queue, Redis when
// configured, and the process's metrics. `stopQueue()` then `close()` release them.
import { Redis } from "ioredis";
import pino from "pino";
import type { Config } from "../config/config.js";
import { EventBus } from "../events/events.js";
import { EventsRepo } from "../events/events.repo.js";
import { createJobQueue } from "../jobs/index.js";
import { type Clock, systemClock } from "../lib/clock.js";
import { prettyStream } from "../lib/pretty-log.js";
import { Metrics } from "../metrics/metrics.js";
import { migrateToLatest, openDatabase } from "../storage/db.js";
import { reportAfterCommitErrorsTo } from "../storage/transaction.js";

export interface PlatformOptions {
  clock?: Clock;
  migrate?: boolean;
  logger?: pino.Logger;
}

export async function createPlatform(config: Readonly<Config>, options: PlatformOptions = {}) {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config);
  const onError = (error: unknown, context: string) => logger.error({ err: error }, context);
  reportAfterCommitErrorsTo((error) => onError(error, "after-commit effect failed"));
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
  const queue = createJobQueue(database, {
    clock,
    pollIntervalMs: config.jobs.pollIntervalMs,
    maintenanceIntervalMs: config.jobs.maintenanceIntervalMs,
    completedRetentionMs: config.jobs.completedRetentionMs,
    failedRetentionMs: config.jobs.failedRetentionMs,
    pgBoss: { maxConnections: config.jobs.pgBossMaxConnections },
    onError: (error) => logger.error({ err: error }, "job queue error"),
  });
  return {
    config,
    clock,
    logger,
    onError,
    database,
    outbox,
    events,
    redis,
    queue,
    /** Prometheus metrics of this process (GET /metrics; WORKER_PORT on workers). */
    metrics: new Metrics(),
    /** Set when the process is shutting down: readiness turns 503 first. */
    lifecycle: { shuttingDown: false },
    /** Stops taking and running jobs at once (first, before the modules close). */
    async stopQueue() {
      await queue
        .stop({ graceful: false, timeoutMs: 0 })
        .catch((error: unknown) => onError(error, "job queue did not stop cleanly"));
    },
    async close() {
      redis?.disconnect();
      await database.close();
    },
  };
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
