// Request metrics for the Fastify app and the GET /metrics route (no authentication, not rate
// limited, hidden from the OpenAPI document).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Metrics } from "./metrics.js";

/** Requests that matched no route share one label, so scanners cannot grow the label set. */
export const UNMATCHED_ROUTE = "unmatched";

type Observer = { observe(value: number): void };

/** Route label: the route pattern (`/v1/leads/:leadId`), never the raw URL. */
export function routeLabelOf(request: Pick<FastifyRequest, "routeOptions">): string {
  return request.routeOptions.url ?? UNMATCHED_ROUTE;
}

/** Observes one answered request's duration (seconds) under its method, route and status. */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

export function requestObserver(metrics: Metrics): RequestObserver {
  // Label children cached by key: observing through a child skips prom-client's label hashing.
  const children = new Map<string, Observer>();
  return (method, route, status, seconds) => {
    const key = `${method} ${status} ${route}`;
    let child = children.get(key);
    if (!child) {
      child = metrics.httpRequestDuration.labels({ method, route, status_code: String(status) });
      children.set(key, child);
    }
    child.observe(seconds);
  };
}

export function registerHttpMetrics(app: FastifyInstance, observe: RequestObserver, metrics: Metrics): void {
  app.addHook("onResponse", (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    observe(request.method, routeLabelOf(request), reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    const { body, contentType } = await metrics.render();
    return reply.type(contentType).send(body);
  });
}
