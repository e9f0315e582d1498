// Process lifecycles for `leadcheck serve` and `leadcheck worker`: start, then on SIGTERM/SIGINT
// turn readiness to 503, stop taking requests and jobs, finish or hand back what is running
// within SHUTDOWN_TIMEOUT_MS, and exit 0.
import type { Config } from "./config/config.js";
import type { App } from "./http/app.js";
import { buildHttpApp, createLogger, createServices, type Services, startQueue } from "./main.js";
import { registerWorkers } from "./worker.js";

export interface Running {
  services: Services;
  app: App | undefined;
  stop(): Promise<void>;
}

export async function startServe(config: Readonly<Config>, options: { worker: boolean }): Promise<Running> {
  const logger = createLogger(config);
  const services = await createServices(config, { logger });
  await startQueue(services);
  if (options.worker) await registerWorkers(services);
  const app = await buildHttpApp(services, logger);
  await app.listen({ port: config.port, host: config.host });
  logger.info(
    { port: config.port, database: config.databaseKind, worker: options.worker },
    "leadcheck API listening",
  );
  return {
    services,
    app,
    stop: () => shutdown(services, app, config),
  };
}

export async function startWorker(config: Readonly<Config>): Promise<Running> {
  const logger = createLogger(config);
  const services = await createServices(config, { logger });
  await startQueue(services);
  await registerWorkers(services);
  // The queue's timers are unref'd; a worker-only process is kept alive by this until shutdown.
  const keepAlive = setInterval(() => {}, 1 << 30);
  logger.info({ database: config.databaseKind }, "leadcheck worker started");
  return {
    services,
    app: undefined,
    stop: async () => {
      clearInterval(keepAlive);
      await shutdown(services, undefined, config);
    },
  };
}

async function shutdown(services: Services, app: App | undefined, config: Readonly<Config>): Promise<void> {
  services.lifecycle.shuttingDown = true;
  const deadline = Date.now() + config.shutdownTimeoutMs;
  // Stop taking requests (in-flight ones finish), then stop taking jobs and hand back the rest.
  await app?.close();
  await services.queue.stop({ graceful: true, timeoutMs: Math.max(0, deadline - Date.now()) });
  await services.close();
}

/** Runs until SIGTERM/SIGINT, then shuts down gracefully; a second signal or the timeout forces exit. */
export function exitOnSignals(running: Running, config: Readonly<Config>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    running.services.logger.info({ signal }, "shutting down");
    const force = setTimeout(() => {
      running.services.logger.error("shutdown timed out; exiting");
      process.exit(1);
    }, config.shutdownTimeoutMs + 5000);
    force.unref();
    running.stop().then(
      () => process.exit(0),
      (error) => {
        running.services.logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
