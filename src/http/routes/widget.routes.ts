// The widget's HTTP face: POST /v1/widget/check-email (publishable key in ?key= or X-API-Key, from
// an allowed origin, with its CORS preflight), POST /v1/widget/confirm (secret key, the form's
// backend), GET /v1/widget/stats (the dashboard's figures) and GET /widget.js (the script itself).
// Refusals come out of the service as domain failures (src/http/errors.ts maps them).

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest, LogLevel } from "fastify";
import { requestOrigin } from "../../keys/key-policy.js";
import {
  CheckEmailBody,
  Confirmation,
  KeyQuery,
  StatsQuery,
  WidgetAnswer,
  WidgetStatsReport,
} from "../../widget/widget.schemas.js";
import type { WidgetCaller, WidgetService } from "../../widget/widget.service.js";
import {
  STATS_DEFAULT_DAYS,
  STATS_MAX_DAYS,
  type WidgetStatsService,
} from "../../widget/widget-stats.service.js";
import type { App } from "../app-types.js";
import { type AuthDeps, principalOf, publishableAuthenticator } from "../auth.js";
import { AppError } from "../errors.js";
import { guardRequest, refuseNonJsonBody } from "../request-guard.js";
import { DATA_SECURITY } from "../schemas.js";

const SCRIPT = readFileSync(new URL("../../widget/widget.js", import.meta.url));
const SCRIPT_ETAG = `"${createHash("sha256").update(SCRIPT).digest("base64url").slice(0, 27)}"`;

const LEVELS: readonly LogLevel[] = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

/** Visitors' checks arrive at a page's traffic: no two info lines per request (incoming, completed);
 *  warnings and errors are still logged, unless the app logs even less. */
function quietLevel(appLevel: string | undefined): LogLevel {
  const index = LEVELS.indexOf(appLevel as LogLevel);
  return index > LEVELS.indexOf("warn") ? (LEVELS[index] as LogLevel) : "warn";
}

const PUBLISHABLE_SECURITY: { [scheme: string]: string[] }[] = [{ publishableKey: [] }, { apiKey: [] }];

export interface WidgetRouteDeps {
  widget: WidgetService;
  widgetStats: WidgetStatsService;
}

export type WidgetCheckRouteDeps = WidgetRouteDeps & Pick<AuthDeps, "keys" | "clock">;

/** The publishable key the auth hook found (the route's `auth: "publishable"` guarantees one). */
function callerOf(request: FastifyRequest): WidgetCaller {
  const { accountId, keyId, policy } = principalOf(request);
  if (keyId === null || policy === null) throw new AppError("UNAUTHORIZED", "Missing publishable key");
  return { accountId, keyId, policy };
}

export async function widgetRoutes(app: App, deps: WidgetRouteDeps): Promise<void> {
  app.get(
    "/v1/widget/stats",
    {
      config: { auth: "data", permission: "credits:read" },
      schema: {
        tags: ["widget"],
        security: DATA_SECURITY,
        operationId: "widgetStats",
        summary: "Widget checks per day, flagged answers by reason and abuse-limit hits",
        description: `For one publishable key (keyId) or every key of the data space, over the last days (default ${STATS_DEFAULT_DAYS}, at most ${STATS_MAX_DAYS}) UTC days up to today. A test-mode key's counts are test data (livemode false). 404 for a key that is not an active publishable key of the account.`,
        querystring: StatsQuery,
        response: { 200: WidgetStatsReport },
      },
    },
    async (request) => deps.widgetStats.report(principalOf(request).accountId, request.query),
  );

  app.post(
    "/v1/widget/confirm",
    {
      config: { auth: "data", permission: "checks:write" },
      schema: {
        tags: ["widget"],
        security: DATA_SECURITY,
        operationId: "widgetConfirm",
        summary: "Confirm a widget token from your form's backend (free)",
        description:
          "Takes the token /widget.js put in the form and the address submitted with it. Answers the verdict the visitor saw, or a fresh one when that was unknown. Never charged. 422 says whether the token is forged, expired, for another address, or for a key not of this account.",
        body: Type.Object({
          token: Type.String({ minLength: 1, maxLength: 4096 }),
          email: Type.String({ minLength: 1, maxLength: 320 }),
        }),
        response: { 200: Confirmation },
      },
    },
    async (request) => {
      const { accountId } = principalOf(request);
      const { verdict, ...rest } = await deps.widget.confirm(
        accountId,
        request.body.token,
        request.body.email,
      );
      return { ...rest, ...verdict };
    },
  );

  app.get(
    "/widget.js",
    { config: { permission: "none" }, schema: { hide: true } },
    async (request, reply) => {
      reply.header("Cache-Control", "public, max-age=300, stale-while-revalidate=86400");
      reply.header("ETag", SCRIPT_ETAG);
      reply.header("Cross-Origin-Resource-Policy", "cross-origin");
      reply.header("X-Content-Type-Options", "nosniff");
      if (request.headers["if-none-match"] === SCRIPT_ETAG) return reply.status(304).send();
      return reply.type("text/javascript; charset=utf-8").send(SCRIPT);
    },
  );
}

/**
 * POST /v1/widget/check-email and its preflight, registered in a scope without the app's global
 * hooks (src/http/app.ts, ADR 0056): each route carries the same rules as hooks of its own, in the
 * same order: the publishable key (authentication, revocation, expiry, source address, type), the
 * origin (before the body is read), then the request guard (content type, control characters),
 * the body schema, the check. Errors leave through the app's error handler, as everywhere.
 */
export async function widgetCheckRoutes(app: App, deps: WidgetCheckRouteDeps): Promise<void> {
  const { widget } = deps;
  const publishable = { auth: "publishable" as const, permission: "publishable" as const };
  const HOT_ROUTE_LOG_LEVEL = quietLevel(app.log.level);

  const authenticate = publishableAuthenticator(deps);
  // Callback form: one promise fewer per request than an async hook (ADR 0055).
  const keyFirst = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    authenticate(request).then(() => done(), done);
  };

  const allowOrigin = (reply: FastifyReply, origin: string) => {
    reply.header("Access-Control-Allow-Origin", origin);
    reply.header("Vary", "Origin");
  };

  app.options(
    "/v1/widget/check-email",
    {
      config: publishable,
      logLevel: HOT_ROUTE_LOG_LEVEL,
      onRequest: keyFirst,
      preValidation: guardRequest,
      schema: { hide: true, querystring: KeyQuery },
    },
    async (request, reply) => {
      const origin = widget.admitOrigin(callerOf(request), requestOrigin(request.headers.origin, undefined));
      allowOrigin(reply, origin);
      reply.header("Access-Control-Allow-Methods", "POST");
      reply.header("Access-Control-Allow-Headers", "Content-Type, X-API-Key");
      reply.header("Access-Control-Max-Age", "600");
      return reply.status(204).send();
    },
  );

  // Before the body is read: a page on another origin learns nothing, not even a 422. Past this,
  // the page may read every answer, refusals (429, CAPTCHA) included.
  // A JSON body is all this route takes: any other type is refused before it is read, with the
  // request guard's answer.
  const keyThenOrigin = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    authenticate(request).then(() => {
      let refused: Error | undefined;
      try {
        const origin = requestOrigin(request.headers.origin, request.headers.referer);
        allowOrigin(reply, widget.admitOrigin(callerOf(request), origin));
        refuseNonJsonBody(request);
      } catch (error) {
        refused = error as Error;
      }
      done(refused);
    }, done);
  };

  app.post(
    "/v1/widget/check-email",
    {
      config: publishable,
      logLevel: HOT_ROUTE_LOG_LEVEL,
      onRequest: keyThenOrigin,
      preValidation: guardRequest,
      schema: {
        tags: ["widget"],
        security: PUBLISHABLE_SECURITY,
        operationId: "widgetCheckEmail",
        summary: "Check an address from a signup form (publishable key, within the deadline)",
        description:
          "For /widget.js in a visitor's browser. Answers within WIDGET_DEADLINE_MS (default 3 s): syntax, typo, disposable and role lists, MX and a recent result; unknown/deadline when the mail server is slower (the probe goes on). Each address is charged once per key and UTC day at the email check's price; a short balance answers unknown (fail open). 403 ORIGIN_NOT_ALLOWED without an allowed Origin or Referer; 429 past the key's abuse limits.",
        querystring: KeyQuery,
        body: CheckEmailBody,
        response: { 200: WidgetAnswer },
      },
    },
    async (request) =>
      widget.check({
        ...callerOf(request),
        origin: requestOrigin(request.headers.origin, request.headers.referer),
        ip: request.ip,
        email: request.body.email,
        captchaToken: request.body.captchaToken,
      }),
  );
}
