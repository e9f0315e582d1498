// Dashboard single sign-on (OpenID Connect, src/accounts/sso.service.ts). The session cookie is
// HttpOnly, SameSite=Lax (sent on the provider's top-level redirect back, not on cross-site
// subrequests) and Secure; Secure is left off only when the callback itself is plain
// http://localhost (tests and local development), where a browser would not store it otherwise.

import { Type } from "@sinclair/typebox";
import type { SsoService } from "../../accounts/sso.service.js";
import { isLoopbackHttp } from "../../accounts/sso.service.js";
import type { Clock } from "../../lib/clock.js";
import type { App } from "../app-types.js";
import { cookieOf, principalOf, SESSION_COOKIE } from "../auth.js";
import { BEARER_SECURITY } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface SsoRoutesDeps {
  clock: Clock;
  sso: SsoService;
}

export async function ssoRoutes(app: App, deps: SsoRoutesDeps): Promise<void> {
  const sso = deps.sso;
  const common = { tags: ["session"] };
  const secure = !isLoopbackHttp(sso.redirectUrl);
  const cookie = (value: string, maxAgeS: number) =>
    `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}${secure ? "; Secure" : ""}`;

  app.get(
    "/v1/auth/sso",
    {
      config: { permission: "none" },
      schema: {
        ...common,
        operationId: "getSsoSettings",
        summary: "Whether single sign-on is on (the dashboard's sign-in page asks)",
        description:
          "No secret here: whether OIDC_ISSUER is configured, and where a browser starts signing in.",
        response: {
          200: Type.Object({ enabled: Type.Boolean(), loginUrl: Type.Union([Type.String(), Type.Null()]) }),
        },
      },
    },
    async () => ({ enabled: sso.enabled, loginUrl: sso.enabled ? "/v1/auth/sso/login" : null }),
  );

  app.get(
    "/v1/auth/sso/login",
    {
      config: { permission: "none" },
      schema: {
        ...common,
        operationId: "startSso",
        summary: "Start single sign-on (redirects to the identity provider)",
        description: "Authorization code flow with PKCE against OIDC_ISSUER. 404 when SSO is not configured.",
        response: { 302: Type.Null({ description: "To the identity provider" }) },
      },
    },
    async (_request, reply) => {
      return reply.redirect((await sso.start()).url, 302);
    },
  );

  app.get(
    "/v1/auth/sso/callback",
    {
      config: { permission: "none" },
      schema: {
        ...common,
        operationId: "completeSso",
        summary: "The identity provider's redirect back: opens a dashboard session",
        description:
          "Checks the state (one started here, answered once), the PKCE verifier and the ID token, then sets the session cookie and redirects to the dashboard. A wrong or reused state, or a code the provider refuses, is 400.",
        querystring: Type.Object({}, { additionalProperties: true }),
        response: { 302: Type.Null({ description: "To the dashboard, with the session cookie" }) },
      },
    },
    async (request, reply) => {
      const { sessionId, session } = await sso.callback(new URL(request.url, sso.redirectUrl));
      const maxAgeS = Math.floor((Date.parse(session.expiresAt) - deps.clock.now().getTime()) / 1000);
      reply.header("Set-Cookie", cookie(sessionId, maxAgeS));
      return reply.redirect("/dashboard/", 302);
    },
  );

  app.get(
    "/v1/auth/sso/session",
    {
      config: { auth: "identity", permission: "identity" },
      schema: {
        ...common,
        security: BEARER_SECURITY,
        operationId: "getSsoSession",
        summary: "Who is signed in, and the session's CSRF token",
        description:
          "With the session cookie: the identity and the CSRF token every state-changing request must send in X-CSRF-Token. With a bearer token, csrfToken is null (bearer requests need none).",
        response: {
          200: Type.Object({
            subject: Type.String(),
            email: Type.Union([Type.String(), Type.Null()]),
            accountId: Type.String(),
            role: Type.Union([Type.String(), Type.Null()]),
            csrfToken: Type.Union([Type.String(), Type.Null()]),
          }),
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const sessionId = principal.via === "session" ? cookieOf(request, SESSION_COOKIE) : undefined;
      const session = sessionId ? await sso.session(sessionId) : undefined;
      return {
        subject: principal.identity?.accountId ?? principal.accountId,
        email: principal.identity?.email ?? null,
        accountId: principal.accountId,
        role: principal.member?.role ?? null,
        csrfToken: session?.csrfToken ?? null,
      };
    },
  );

  app.post(
    "/v1/auth/sso/logout",
    {
      config: { auth: "identity", permission: "identity" },
      schema: {
        ...common,
        security: BEARER_SECURITY,
        operationId: "endSsoSession",
        summary: "Sign out: ends the session on the server and clears the cookie",
        description:
          "Needs X-CSRF-Token like every state-changing cookie request. The session is refused from then on.",
        response: { 200: Type.Object({ message: Type.String() }) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const sessionId = cookieOf(request, SESSION_COOKIE);
      if (principal.via === "session" && sessionId) await sso.logout(sessionId);
      reply.header("Set-Cookie", cookie("", 0));
      return { message: "Signed out" };
    },
  );
}
