import type { SelfCheckSnapshot } from "../../checks/email/smtp-self-check.js";
import type { Clock } from "../../lib/clock.js";
import { ProbeBody } from "../../net/health.schemas.js";
import type { NetworkHealth } from "../../net/network-health.js";
import type { Database } from "../../storage/db.js";
import { isDatabaseReachable } from "../../storage/ping.js";
import type { App } from "../app-types.js";
import { NO_SECURITY } from "../schemas.js";

/** What the probes read (the app hands each route file only its own deps). */
export interface ProbeRoutesDeps {
  database: Database;
  clock: Clock;
  /** The SMTP egress and HELO self-checks, shown as a detail of /readiness. */
  smtpSelfCheck?: { snapshot(): SelfCheckSnapshot } | undefined;
  /** Resolver and SMTP egress health (/readiness); absent: not watched. */
  networkHealth?: Pick<NetworkHealth, "status"> | undefined;
  /** Readiness of the job queue (absent: not part of this process). */
  queueReady?: () => Promise<boolean>;
  /** Set when the process is shutting down: readiness turns 503 first. */
  lifecycle: { shuttingDown: boolean };
}

export async function probeRoutes(app: App, deps: ProbeRoutesDeps): Promise<void> {
  const probe = { tags: ["health"], security: NO_SECURITY };

  app.get(
    "/health",
    {
      config: { permission: "none" },
      schema: {
        ...probe,
        operationId: "getHealth",
        summary: "Health",
        description:
          "Answers 200 while the process runs; no dependency is checked. For load balancers and uptime monitors.",
        response: { 200: ProbeBody },
      },
    },
    async () => ({
      status: "healthy",
      timestamp: deps.clock.now().toISOString(),
    }),
  );

  app.get(
    "/liveness",
    {
      config: { permission: "none" },
      schema: {
        ...probe,
        operationId: "getLiveness",
        summary: "Liveness",
        description:
          "Answers 200 while the process can serve requests; an orchestrator restarts the process when it stops answering.",
        response: { 200: ProbeBody },
      },
    },
    async () => ({
      status: "alive",
      timestamp: deps.clock.now().toISOString(),
    }),
  );

  app.get(
    "/readiness",
    {
      config: { permission: "none" },
      schema: {
        ...probe,
        operationId: "getReadiness",
        summary: "Readiness: database and queue",
        description:
          "Checks the database and the job queue; 503 while either is unreachable or the server is shutting down, so a load balancer sends no traffic here.",
        response: { 200: ProbeBody, 503: ProbeBody },
      },
    },
    async (_request, reply) => {
      const checks: Record<string, string> = {};
      checks.database = (await isDatabaseReachable(deps.database.db)) ? "ok" : "unavailable";
      if (deps.queueReady) {
        checks.queue = await deps.queueReady().then(
          (ok) => (ok ? "ok" : "unavailable"),
          () => "unavailable",
        );
      }
      if (deps.lifecycle.shuttingDown) checks.lifecycle = "shutting_down";
      const ready = Object.values(checks).every((v) => v === "ok");
      const smtp = deps.smtpSelfCheck?.snapshot();
      const network = deps.networkHealth?.status();
      return reply.status(ready ? 200 : 503).send({
        status: ready ? "ready" : "not_ready",
        timestamp: deps.clock.now().toISOString(),
        checks,
        ...(smtp || network
          ? {
              details: {
                ...(network ? { network: { ...network.network, checkedAt: network.checkedAt } } : {}),
                ...(smtp
                  ? {
                      smtp: {
                        egress: smtp.egress,
                        heloName: smtp.heloName,
                        heloWarnings: smtp.heloWarnings,
                        ...(smtp.egressMessage ? { egressMessage: smtp.egressMessage } : {}),
                        ...(smtp.egressAddress ? { egressAddress: smtp.egressAddress } : {}),
                        ...(smtp.checkedAt ? { checkedAt: smtp.checkedAt } : {}),
                      },
                    }
                  : {}),
              },
            }
          : {}),
      });
    },
  );
}
