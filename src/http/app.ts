// buildApp(deps): the HTTP face of the service. Routes declare TypeBox schemas (validation,
// serialization and OpenAPI from one source), call one service and map the outcome to JSON.
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { AjvCompiler } from "@fastify/ajv-compiler";
import multipart from "@fastify/multipart";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from "fastify";
import type { Redis } from "ioredis";
import type { Config } from "../config/config.js";
import { MULTILINE } from "../lib/safe-text.js";
import { registerHttpMetrics, requestObserver } from "../metrics/http-metrics.js";
import type { Metrics } from "../metrics/metrics.js";
import { API_VERSION } from "../version.js";
import type { App } from "./app-types.js";
import {
  type AuthDeps,
  accessRegistryFor,
  authHook,
  authorizeKey,
  declareAccess,
  settleKey,
} from "./auth.js";
import { dashboardRoutes } from "./dashboard.js";
import { AppError, errorHandler, notFoundHandler, sendError } from "./errors.js";
import { OPENAPI_TAGS, openApiContact, publicBaseUrl } from "./openapi-meta.js";
import { RATE_LIMIT_HEADERS, RateLimits } from "./rate-limit.js";
import { guardRequest } from "./request-guard.js";
import { lazyRequestLogger } from "./request-logger.js";
import { type AccountExportRoutesDeps, accountExportRoutes } from "./routes/account-export.routes.js";
import { type AdminRoutesDeps, adminRoutes } from "./routes/admin.routes.js";
import { type AuditRoutesDeps, auditRoutes } from "./routes/audit.routes.js";
import { type BatchesRoutesDeps, batchesRoutes } from "./routes/batches.routes.js";
import { type ChecksRoutesDeps, checksRoutes } from "./routes/checks.routes.js";
import { type ConnectionsRoutesDeps, connectionsRoutes } from "./routes/connections.routes.js";
import { type CreditsRoutesDeps, creditsRoutes } from "./routes/credits.routes.js";
import { type KeysRoutesDeps, keysRoutes } from "./routes/keys.routes.js";
import { type LeadFilesRoutesDeps, leadFilesRoutes } from "./routes/lead-files.routes.js";
import { type LeadsRoutesDeps, leadsRoutes } from "./routes/leads.routes.js";
import { type MeRoutesDeps, meRoutes } from "./routes/me.routes.js";
import { type PaymentsRoutesDeps, paymentsRoutes } from "./routes/payments.routes.js";
import { type PrivacyRoutesDeps, privacyRoutes } from "./routes/privacy.routes.js";
import { type ProbeRoutesDeps, probeRoutes } from "./routes/probes.routes.js";
import { type RevalidationRoutesDeps, revalidationRoutes } from "./routes/revalidation.routes.js";
import { type SessionRoutesDeps, sessionRoutes } from "./routes/session.routes.js";
import { type SsoRoutesDeps, ssoRoutes } from "./routes/sso.routes.js";
import { type StatusRoutesDeps, statusRoutes } from "./routes/status.routes.js";
import { type TeamRoutesDeps, teamRoutes } from "./routes/team.routes.js";
import { type UsageRoutesDeps, usageRoutes } from "./routes/usage.routes.js";
import { type WebhooksRoutesDeps, webhooksRoutes } from "./routes/webhooks.routes.js";
import { type WidgetRouteDeps, widgetCheckRoutes, widgetRoutes } from "./routes/widget.routes.js";
import { ErrorResponse } from "./schemas.js";
import { nullableAwareSerializer } from "./serializer.js";
import { frontedServer, widgetFront } from "./widget-front.js";

export type { App } from "./app-types.js";

/** What buildApp needs: what the app itself reads (authentication, rate limits, metrics, logs)
 *  and the sum of its route files' own deps. */
export type AppDeps = Omit<AuthDeps, "adminToken"> &
  AccountExportRoutesDeps &
  AdminRoutesDeps &
  AuditRoutesDeps &
  BatchesRoutesDeps &
  ChecksRoutesDeps &
  ConnectionsRoutesDeps &
  CreditsRoutesDeps &
  KeysRoutesDeps &
  LeadFilesRoutesDeps &
  LeadsRoutesDeps &
  MeRoutesDeps &
  PaymentsRoutesDeps &
  PrivacyRoutesDeps &
  ProbeRoutesDeps &
  RevalidationRoutesDeps &
  SessionRoutesDeps &
  SsoRoutesDeps &
  StatusRoutesDeps &
  TeamRoutesDeps &
  UsageRoutesDeps &
  WebhooksRoutesDeps &
  WidgetRouteDeps & {
    config: Readonly<Config>;
    /** Rate-limit counters shared by every instance; absent: kept in memory. */
    redis?: Redis | undefined;
    /** Request metrics and GET /metrics; absent: neither. */
    metrics?: Metrics | undefined;
    /** Request logs go here (pino, with request ids); none when absent. */
    logger?: FastifyBaseLogger | undefined;
  };

const DEFAULT_ERROR_STATUSES = ["400", "401", "404", "422", "429", "500"];

/**
 * Request validation: query strings, path parameters and headers are text, so their values are
 * coerced to the schema's types (`?limit=10`, a lone `?ids=a` as an array); JSON bodies carry
 * their own types and are not (`"events": "lead.created"` is not an array, `""` is not null).
 */
function partAwareValidator(): NonNullable<
  NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]
>["buildValidator"] {
  const pool = AjvCompiler();
  // MULTILINE is an annotation (src/lib/safe-text.ts), declared so Ajv's strict mode accepts it.
  const common = { allErrors: true, useDefaults: true, removeAdditional: false, keywords: [MULTILINE] };
  type Build = ReturnType<typeof pool>;
  return (externalSchemas: unknown) => {
    const forBody: Build = pool(externalSchemas as never, {
      customOptions: { ...common, coerceTypes: false },
    });
    const forText: Build = pool(externalSchemas as never, {
      customOptions: { ...common, coerceTypes: "array" },
    });
    // Fastify passes { schema, method, url, httpPart } (its types only say "a schema").
    const compile = (route: { httpPart?: string }) =>
      (route.httpPart === "body" ? forBody : forText)(route as never);
    return compile as never;
  };
}

/** A request's id: the client's X-Request-Id when it is well formed, else a new UUID. */
function requestIdOf(req: IncomingMessage): string {
  const given = req.headers["x-request-id"];
  return typeof given === "string" && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const observe = deps.metrics && requestObserver(deps.metrics);
  // While the server closes, requests that still arrive (keep-alive, pipelined) are refused at
  // once with the error body, and the connection is closed so the client goes elsewhere.
  let isClosing = false;
  // The widget's check meets its front before Fastify (ADR 0056); `app` is in place before any
  // request arrives.
  const front = widgetFront({
    ...deps,
    maxBodyBytes: deps.config.limits.maxBodyBytes,
    requestIdOf,
    isClosing: () => isClosing || deps.lifecycle.shuttingDown,
    observe,
    log: deps.logger ?? { error: () => {}, warn: () => {} },
    replay: (options) => app.inject(options),
  });
  const app = Fastify({
    ...(deps.logger
      ? { loggerInstance: deps.logger, childLoggerFactory: lazyRequestLogger }
      : { logger: false }),
    bodyLimit: deps.config.limits.maxBodyBytes,
    genReqId: requestIdOf,
    serverFactory: (handler, options) => frontedServer(front, handler, options as never),
    schemaController: {
      compilersFactory: { buildValidator: partAwareValidator(), buildSerializer: nullableAwareSerializer() },
    },
    // Our own 503 below answers in the error body; Fastify's would not.
    return503OnClosing: false,
    // A path parameter over 100 characters is Fastify's 414, in our error body.
    frameworkErrors: (error, request, reply): unknown => {
      if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
        return sendError(
          reply,
          new AppError("URI_TOO_LONG", "A path parameter is longer than 100 characters"),
        );
      }
      return errorHandler(error, request as never, reply as never);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook("preClose", async () => {
    isClosing = true;
  });
  // Hooks that run on every request take a callback rather than return a promise: one promise and
  // microtask fewer per hook on every request (the widget's hot path, ADR 0055).
  // Every answer names its request: set first thing, so no onSend hook runs per response (the
  // error paths that start before this hook set it in sendError).
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("X-Request-Id", request.id);
    if (!isClosing) return done();
    reply.header("Connection", "close");
    done(
      new AppError(
        "SERVICE_UNAVAILABLE",
        "The server is shutting down; retry the request",
        { retry_after: 1 },
        {},
        { "Retry-After": "1" },
      ),
    );
  });

  app.addSchema(ErrorResponse);
  // CSV imports arrive as text/csv bodies or multipart uploads, as bytes: the import detects
  // their encoding (a Latin-1 file decoded as UTF-8 loses its umlauts).
  app.addContentTypeParser(["text/csv", "text/plain"], { parseAs: "buffer" }, (_req, body, done) =>
    done(null, body),
  );
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);

  // Each route's declared access (auth.ts), recorded and shown in the OpenAPI document.
  const accessRegistry = accessRegistryFor(app);
  app.addHook("onRoute", (route) => declareAccess(route as never, accessRegistry));
  // Every documented route answers its errors in the one error body: say so in the OpenAPI document.
  app.addHook("onRoute", (route) => {
    if (!route.schema || route.schema.hide) return;
    const response = (route.schema.response ?? {}) as Record<string, unknown>;
    const statuses = [...DEFAULT_ERROR_STATUSES];
    const auth = route.config && (route.config as { auth?: string }).auth;
    if (auth === "identity" || auth === "data" || auth === "publishable") statuses.push("403");
    for (const status of statuses) response[status] ??= { $ref: "ErrorResponse#" };
    route.schema.response = response;
  });

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "leadcheck API",
        version: API_VERSION,
        description:
          "Lead and site validation: email and website checks, leads with 0-100 ratings, batches, credits and webhooks.",
        contact: openApiContact(deps.config),
      },
      servers: [{ url: publicBaseUrl(deps.config), description: "This server (PUBLIC_URL)" }],
      tags: OPENAPI_TAGS,
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
          bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
          publishableKey: { type: "apiKey", in: "query", name: "key" },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  if (deps.metrics && observe) registerHttpMetrics(app, observe, deps.metrics);
  app.decorateRequest("principal", null);
  app.decorateRequest("pendingKeyCheck", null);
  app.decorateRequest("routeOptionsSeen", null);

  // The widget's check and its preflight, a page's traffic, in a scope of their own: it takes
  // the hooks above (request id, shutdown, metrics) and none below (the request guard runs as the
  // route's own hook, authentication is the publishable key's alone, multipart is not accepted).
  // Hooks added to the root from here on reach every other route, as before (ADR 0056).
  await app.register(async (scope) => widgetCheckRoutes(scope as App, deps));

  app.addHook("preValidation", guardRequest);
  await app.register(swaggerUi, { routePrefix: "/docs", staticCSP: true });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  const authenticate = authHook({ ...deps, adminToken: deps.config.auth.adminToken });
  const limit = new RateLimits(deps.config.rateLimits, deps.redis).hook();
  app.addHook("onRequest", async (request, reply) => {
    await authenticate(request, reply);
    // Publishable keys are not rate limited per key (the widget counts per visitor): no counter
    // round trip to share, so the key's check is awaited alone.
    if (request.principal?.via === "publishable_key") {
      await settleKey(request);
      return authorizeKey(request, deps.clock.now());
    }
    // A cached key's revocation check may still be in flight: the rate-limit counters go out in
    // the same Redis round trip, and the key's verdict comes first (a revoked key hears 401).
    const [key, limited] = await Promise.allSettled([settleKey(request), limit(request, reply)]);
    if (key.status === "rejected") {
      for (const name of RATE_LIMIT_HEADERS) reply.removeHeader(name);
      throw key.reason;
    }
    if (limited.status === "rejected") throw limited.reason;
    authorizeKey(request, deps.clock.now());
  });

  await app.register(async (scope) => {
    await probeRoutes(scope as App, deps);
    await keysRoutes(scope as App, deps);
    await creditsRoutes(scope as App, deps);
    await paymentsRoutes(scope as App, deps);
    await adminRoutes(scope as App, deps);
    await leadsRoutes(scope as App, deps);
    // Only the CSV import takes multipart uploads: the plugin's two async hooks (and a close
    // listener) run on its scope's routes alone, not on every request (ADR 0083).
    await scope.register(async (files) => {
      await files.register(multipart, {
        limits: { fileSize: deps.config.limits.maxBodyBytes, files: 1, fields: 10 },
      });
      await leadFilesRoutes(files as App, deps);
    });
    await batchesRoutes(scope as App, deps);
    await checksRoutes(scope as App, deps);
    await webhooksRoutes(scope as App, deps);
    await sessionRoutes(scope as App, deps);
    await usageRoutes(scope as App, deps);
    await auditRoutes(scope as App, deps);
    await privacyRoutes(scope as App, deps);
    await revalidationRoutes(scope as App, deps);
    await accountExportRoutes(scope as App, deps);
    await statusRoutes(scope as App, deps);
    await connectionsRoutes(scope as App, deps);
    await widgetRoutes(scope as App, deps);
    await teamRoutes(scope as App, deps);
    await meRoutes(scope as App, deps);
    await ssoRoutes(scope as App, deps);
  });
  await dashboardRoutes(app);

  return app as App;
}
