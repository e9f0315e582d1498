import { Type } from "@sinclair/typebox";
import { isDatabaseReachable } from "../../storage/ping.js";
import type { App, AppDeps } from "../app-types.js";
import { NO_SECURITY } from "../schemas.js";

const ProbeBody = Type.Object({
  status: Type.String(),
  timestamp: Type.String(),
  checks: Type.Optional(Type.Record(Type.String(), Type.String())),
});

export async function probeRoutes(app: App, deps: AppDeps): Promise<void> {
  const probe = { tags: ["health"], security: NO_SECURITY };

  app.get(
    "/health",
    { schema: { ...probe, operationId: "getHealth", summary: "Health", response: { 200: ProbeBody } } },
    async () => ({
      status: "healthy",
      timestamp: deps.clock.now().toISOString(),
    }),
  );

  app.get(
    "/liveness",
    { schema: { ...probe, operationId: "getLiveness", summary: "Liveness", response: { 200: ProbeBody } } },
    async () => ({
      status: "alive",
      timestamp: deps.clock.now().toISOString(),
    }),
  );

  app.get(
    "/readiness",
    {
      schema: {
        ...probe,
        operationId: "getReadiness",
        summary: "Readiness: database and queue",
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
      return reply.status(ready ? 200 : 503).send({
        status: ready ? "ready" : "not_ready",
        timestamp: deps.clock.now().toISOString(),
        checks,
      });
    },
  );
}
