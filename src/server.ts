// Process lifecycles for `leadcheck serve` and `leadcheck worker`: start, then on SIGTERM/SIGINT
// turn readiness to 503 (for SHUTDOWN_DRAIN_MS while requests are still served), stop taking
// requests and jobs, finish or hand back what is running within SHUTDOWN_TIMEOUT_MS, and exit 0.
import { setTimeout as sleep } from "node:timers/promises";
import type { Config } from "./config/config.js";
import type { App } from "./http/app.js";
import { listeningLine } from "./lifecycle/startup-line.js";
import { buildHttpApp, createLogger, createServices, type Services, startQueue } from "./main.js";
import { startWorkerEndpoint, type WorkerEndpoint } from "./metrics/worker-endpoint.js";
import { isDatabaseReachable } from "./storage/ping.js";
import { registerWorkers } from "./worker.js";

/** The SMTP egress and HELO identity self-checks, logged; results feed verdicts and /readiness. */
function startSmtpSelfCheck(services: Services, logger: { info: LogFn; warn: LogFn }): void {
  if (!services.config.smtp.selfCheck) return;
  void services.smtpSelfCheck.run().then(
    (s) => {
      if (s.egress === "blocked")
        logger.warn(
          { egress: s.egress, reason: s.egressMessage },
          "SMTP egress blocked: email results will be unknown (egress_blocked) until a restart finds port 25 reachable (NETWORK_CHECK=true re-checks every NETWORK_CHECK_INTERVAL_MS)",
        );
      else logger.info({ egress: s.egress, detail: s.egressMessage }, "SMTP egress reachable");
      for (const warning of s.heloWarnings)
        logger.warn({ heloName: s.heloName }, `SMTP identity: ${warning}`);
    },
    (err: unknown) => logger.warn({ err }, "SMTP self-check failed"),
  );
}

/** NETWORK_CHECK: canaries and the egress check at start-up and every NETWORK_CHECK_INTERVAL_MS
 *  (state changes are logged by NetworkHealth's wiring); off: the egress check once, as before. */
function startNetworkChecks(services: Services, logger: { info: LogFn; warn: LogFn }): void {
  if (!services.config.network.check) {
    startSmtpSelfCheck(services, logger);
    return;
  }
  void services.networkHealth.start().then(
    () => {
      if (!services.config.smtp.selfCheck) return;
      const s = services.smtpSelfCheck.snapshot();
      for (const warning of s.heloWarnings)
        logger.warn({ heloName: s.heloName }, `SMTP identity: ${warning}`);
    },
    (err: unknown) => logger.warn({ err }, "network check failed"),
  );
}

type LogFn = (obj: object, msg: string) => void;

export interface Running {
  services: Services;
  app: App | undefined;
  stop(): Promise<void>;
}

export async function startServe(config: Readonly<Config>, options: { worker: boolean }): Promise<Running> {
  const logger = createLogger(config);
  const services = await createServices(config, { logger });
  services.metrics.collectProcessMetrics();
  await startQueue(services);
  startNetworkChecks(services, logger);
  if (options.worker) await registerWorkers(services);
  const app = await buildHttpApp(services, logger);
  // While draining, answers close their connection: clients reconnect to another instance, and
  // close() need not wait for keep-alive sockets to time out.
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (services.lifecycle.shuttingDown) reply.header("connection", "close");
    done(null, payload);
  });
  await app.listen({ port: config.port, host: config.host });
  logger.info(
    {
      port: config.port,
      database: config.databaseKind,
      sqliteDriver: services.database.sqliteDriver,
      worker: options.worker,
    },
    "leadcheck API listening",
  );
  process.stderr.write(`${listeningLine(app.server.address(), config.host)}\n`);
  return {
    services,
    app,
    stop: () => shutdown(services, app, config),
  };
}

export async function startWorker(config: Readonly<Config>): Promise<Running> {
  const logger = createLogger(config);
  const services = await createServices(config, { logger });
  services.metrics.collectProcessMetrics();
  await startQueue(services);
  startNetworkChecks(services, logger);
  await registerWorkers(services);
  const endpoint =
    config.worker.port === undefined
      ? undefined
      : await startWorkerEndpoint(
          {
            metrics: services.metrics,
            readinessChecks: () => readinessChecks(services),
            lifecycle: services.lifecycle,
            now: () => services.clock.now(),
          },
          { port: config.worker.port, host: config.host },
        );
  // The queue's timers are unref'd; a worker-only process is kept alive by this until shutdown.
  const keepAlive = setInterval(() => {}, 1 << 30);
  logger.info(
    { database: config.databaseKind, sqliteDriver: services.database.sqliteDriver, port: endpoint?.port },
    "leadcheck worker started",
  );
  return {
    services,
    app: undefined,
    stop: async () => {
      clearInterval(keepAlive);
      await shutdown(services, undefined, config, endpoint);
    },
  };
}

async function readinessChecks(services: Services): Promise<Record<string, string>> {
  const [database, queue] = await Promise.all([
    isDatabaseReachable(services.database.db).then((ok) => (ok ? "ok" : "unavailable")),
    services.queue.ping().then(
      (ok) => (ok ? "ok" : "unavailable"),
      () => "unavailable",
    ),
  ]);
  return { database, queue };
}

async function shutdown(
  services: Services,
  app: App | undefined,
  config: Readonly<Config>,
  endpoint?: WorkerEndpoint,
): Promise<void> {
  services.lifecycle.shuttingDown = true;
  const deadline = Date.now() + config.shutdownTimeoutMs;
  const remaining = () => Math.max(0, deadline - Date.now());
  // Readiness already answers 503; keep serving while load balancers take this instance out.
  if (app && config.shutdownDrainMs > 0) await sleep(Math.min(config.shutdownDrainMs, remaining()));
  // Stop taking requests; in-flight ones may finish until the deadline, then they are cut.
  if (app) await closeWithin(app, remaining());
  services.logger.info("requests stopped; stopping jobs");
  // Stop taking jobs; running ones finish until the deadline or go back to the queue.
  await services.queue.stop({ graceful: true, timeoutMs: remaining() });
  services.logger.info("jobs stopped");
  await endpoint?.close();
  await services.close();
  services.logger.info("shut down");
}

async function closeWithin(app: App, timeoutMs: number): Promise<void> {
  const closed = app.close();
  // A socket busy when close() began turns idle once its answer is out: close it then.
  const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
  const timer = sleep(timeoutMs, "timeout" as const, { ref: false });
  try {
    if ((await Promise.race([closed, timer])) === "timeout") {
      app.log.warn("requests still running at the shutdown deadline; closing their connections");
      app.server.closeAllConnections();
      await closed;
    }
  } finally {
    clearInterval(sweep);
  }
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
