// POST /v1/auth/session: the dashboard trades a one-time sign-in token (from `leadcheck dashboard
// link`) for a 12-hour session token it then sends as `Authorization: Bearer`.
import { Session, SessionBody } from "../../accounts/session.schemas.js";
import type { SigninService } from "../../accounts/signin.service.js";
import type { AuditService } from "../../audit/audit.service.js";
import type { App } from "../app-types.js";
import { AppError } from "../errors.js";
import { NO_SECURITY } from "../schemas.js";

const REFUSALS = {
  invalid: "Invalid sign-in token: ask for a new sign-in link",
  expired: "This sign-in link has expired: ask for a new one",
  reused: "This sign-in link was already used: ask for a new one",
} as const;

/** What these routes use (the app hands each route file only its own deps). */
export interface SessionRoutesDeps {
  audit: AuditService;
  signin: SigninService;
}

export async function sessionRoutes(app: App, deps: SessionRoutesDeps): Promise<void> {
  const { signin } = deps;

  app.post(
    "/v1/auth/session",
    {
      config: { permission: "none" },
      schema: {
        tags: ["keys"],
        security: NO_SECURITY,
        operationId: "createSession",
        summary: "Exchange a one-time dashboard sign-in token for a session token",
        description:
          "Sign-in tokens come from `leadcheck dashboard link` (needs AUTH_JWT_SECRET). Each works once and " +
          "only here; the session token lasts 12 hours. Answers 401 for an expired, reused or invalid token.",
        body: SessionBody,
        response: { 200: Session },
      },
    },
    async (request) => {
      const outcome = await signin.exchange(request.body.token);
      switch (outcome.kind) {
        case "session":
          // The one-time token is already spent: the sign-in stands whether or not this entry is written.
          await deps.audit.recordAlone(outcome.accountId, {
            actor: {
              kind: "member",
              id: outcome.accountId,
              ip: request.ip,
              userAgent: request.headers["user-agent"] ?? null,
            },
            action: "session.signed_in",
            target: { kind: "account", id: outcome.accountId },
            details: { method: "signin_link", expires_at: outcome.expiresAt },
          });
          return {
            token: outcome.token,
            token_type: "Bearer" as const,
            account_id: outcome.accountId,
            expires_at: outcome.expiresAt,
          };
        case "disabled":
          throw new AppError("NOT_FOUND", "Sign-in links are disabled (AUTH_JWT_SECRET is not set)");
        default:
          throw new AppError("UNAUTHORIZED", REFUSALS[outcome.kind], { reason: outcome.kind });
      }
    },
  );
}
