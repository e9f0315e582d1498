import { ProbeBody } from "../../net/health.schemas.js";
import { isDatabaseReachable } from "../../storage/ping.js";
import type { App, AppDeps } from "../app-types.js";
import { NO_SECURITY } from "../schemas.js";

export async function probeRoutes(app: App, deps: AppDeps): Promise<void> {
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
