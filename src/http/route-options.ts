// Fastify builds `request.routeOptions` afresh (a 13-field object) on every read. The hooks of
// every request read it four or five times (authentication, permission, request guard, rate
// limits), so the first read is kept on the request and the others reuse it (ADR 0082).
import type { FastifyRequest } from "fastify";

type RouteOptions = FastifyRequest["routeOptions"];

declare module "fastify" {
  interface FastifyRequest {
    /** `routeOptions` as first read in this request; use routeOptionsOf(). */
    routeOptionsSeen: FastifyRequest["routeOptions"] | null;
  }
}

/** The request's route options, built once per request. */
export function routeOptionsOf(request: FastifyRequest): RouteOptions {
  request.routeOptionsSeen ??= request.routeOptions;
  return request.routeOptionsSeen;
}
