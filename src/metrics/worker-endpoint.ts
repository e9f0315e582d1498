// The worker's small HTTP face (WORKER_PORT): /health, /liveness, /readiness and /metrics, so a
// process manager or Kubernetes probes workers like API processes and Prometheus scrapes them.
// Plain node:http: a worker serves no API, and these four answers need no framework.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Metrics } from "./metrics.js";

export interface WorkerEndpointDeps {
  metrics: Metrics;
  /** Database and queue checks, each "ok" or "unavailable". */
  readinessChecks: () => Promise<Record<string, string>>;
  lifecycle: { shuttingDown: boolean };
  now: () => Date;
}

export interface WorkerEndpoint {
  port: number;
  close(): Promise<void>;
}

export async function startWorkerEndpoint(
  deps: WorkerEndpointDeps,
  listen: { port: number; host: string },
): Promise<WorkerEndpoint> {
  const server = createServer((request, response) => {
    handle(deps, request, response).catch(() => {
      if (!response.headersSent)
        send(response, 500, { status: "error", timestamp: deps.now().toISOString() });
      else response.destroy();
    });
  });
  // Probes open a connection per request; keep-alive would only hold shutdown up.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => closeServer(server),
  };
}

async function handle(deps: WorkerEndpointDeps, request: IncomingMessage, response: ServerResponse) {
  const path = (request.url ?? "/").split("?")[0];
  const timestamp = deps.now().toISOString();
  if (request.method !== "GET" && request.method !== "HEAD") {
    send(response, 405, { error: "Method Not Allowed", timestamp });
    return;
  }
  switch (path) {
    case "/health":
      send(response, 200, { status: "healthy", timestamp });
      return;
    case "/liveness":
      send(response, 200, { status: "alive", timestamp });
      return;
    case "/readiness": {
      const checks = await deps.readinessChecks();
      if (deps.lifecycle.shuttingDown) checks.lifecycle = "shutting_down";
      const ready = Object.values(checks).every((v) => v === "ok");
      send(response, ready ? 200 : 503, { status: ready ? "ready" : "not_ready", timestamp, checks });
      return;
    }
    case "/metrics": {
      const { body, contentType } = await deps.metrics.render();
      response.writeHead(200, { "content-type": contentType });
      response.end(body);
      return;
    }
    default:
      send(response, 404, { error: "Not Found", timestamp });
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  response.end(JSON.stringify(body));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
