// Authentication and authorization per route (decisions §2, §8). Each route declares, beside its
// schema, `config.auth` (how the caller proves who it is) and `config.permission` (what a key
// needs): data routes take `X-API-Key` or an identity JWT and a documented permission; the widget
// route takes a publishable key (`?key=` or X-API-Key); `/v1/auth/keys` takes only the identity
// JWT (an API key there is 403); admin routes take ADMIN_TOKEN and are off (404) when it is unset.
// A bearer token acts as a team member of the account `X-Account-Id` names (its own without it),
// and the same declared permission is checked against the member's role (src/teams/roles.ts).
// Runs in onRequest, before the body is read.
import { timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Identity, IdentityVerifier } from "../accounts/identity.js";
import type { SsoService } from "../accounts/sso.service.js";
import type { CreditsService } from "../credits/credits.service.js";
import { hasPermission, ipAllowed, type KeyPolicy, type Permission } from "../keys/key-policy.js";
import type { KeysService } from "../keys/keys.service.js";
import type { Clock } from "../lib/clock.js";
import { isTestSpace, liveAccountOf } from "../lib/data-space.js";
import {
  isRole,
  keyPermissionFor,
  type MemberPermission,
  type Role,
  type RolePermission,
  requiredRoleFor,
  roleAllows,
} from "../teams/roles.js";
import type { TeamsService } from "../teams/teams.service.js";
import { AppError } from "./errors.js";
import { routeOptionsOf } from "./route-options.js";

type AuthMode = "none" | "data" | "identity" | "admin" | "publishable";

/**
 * What a route asks of a key: one of the documented permissions (data routes), or how the route
 * is reached without one: `authenticated` (any secret key, whatever its permissions: the
 * service's own status), `none` (probes, sign-in, the Stripe webhook), `identity` (any identity:
 * accepting an invitation, the SSO session), `admin`, `publishable` (the widget). Member
 * permissions (`keys:write`, `team:read`, ...) are held only through a role. Every route declares
 * it; a test fails when one does not (test/http/route-permissions.test.ts,
 * test/teams/role-matrix.test.ts).
 */
export type RouteAccess =
  | Permission
  | MemberPermission
  | "authenticated"
  | "none"
  | "identity"
  | "admin"
  | "publishable";

export interface Principal {
  accountId: string;
  via: "api_key" | "jwt" | "session" | "admin" | "publishable_key";
  keyId: string | null;
  /** The key's policy; null for JWTs and the admin token (they hold every permission). */
  policy: KeyPolicy | null;
  /** What rate limits count against: the key for API keys, the account for JWTs. */
  rateLimitKey: string;
  /** The team member a bearer token acts as; null for keys and the admin token. */
  member: { memberId: string; role: Role } | null;
  /** The bearer token's identity (subject and email claims); null for keys and the admin token. */
  identity: Identity | null;
}

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: AuthMode;
    permission?: RouteAccess;
    /** The route reaches a third party (HubSpot, Google): test-mode keys are refused (ADR 0051). */
    liveOnly?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** A cached API key's revocation check still in flight; settleKey() awaits it. */
    pendingKeyCheck: (() => Promise<unknown>) | null;
  }
}

export interface AuthDeps {
  keys: KeysService;
  identity: IdentityVerifier;
  credits: CreditsService;
  teams: TeamsService;
  /** Dashboard SSO sessions (cookie); absent or disabled: no cookie authentication. */
  sso?: SsoService | undefined;
  clock: Clock;
  adminToken: string | undefined;
}

/** The dashboard session cookie (HttpOnly; see sso.routes.ts for its attributes). */
export const SESSION_COOKIE = "lc_session";
/** The header a cookie-authenticated state-changing request carries its session's CSRF token in. */
const CSRF_HEADER = "x-csrf-token";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** One cookie's value from the Cookie header. */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const missing = () =>
  new AppError("UNAUTHORIZED", "Missing authentication: send X-API-Key or a Bearer token");
const invalidKey = () => new AppError("INVALID_API_KEY", "Invalid or revoked API key");
const invalidToken = () => new AppError("UNAUTHORIZED", "Invalid or expired bearer token");

/** The `?key=` of a widget request: a CORS preflight cannot carry a custom header. */
function queryKey(request: FastifyRequest): string | undefined {
  const key = (request.query as Record<string, unknown> | undefined)?.key;
  return typeof key === "string" && key !== "" ? key : undefined;
}

/** The key a widget request names: `?key=`, else X-API-Key (a lone one: several are refused). */
function publishableKeyOf(request: FastifyRequest, apiKey: string | string[] | undefined): string {
  if (Array.isArray(apiKey)) throw invalidKey();
  const key = queryKey(request) ?? apiKey;
  if (!key) throw new AppError("UNAUTHORIZED", "Missing publishable key: send ?key=pk_... or X-API-Key");
  return key;
}

/** Looks a key up and makes it the request's principal; its revocation check is left pending
 *  (settleKey awaits it). */
function keyAuthenticator(keys: Pick<KeysService, "beginAuthenticate">) {
  return async (request: FastifyRequest, apiKey: string, via: Principal["via"]): Promise<void> => {
    const found = await keys.beginAuthenticate(apiKey.trim());
    if (!found) throw invalidKey();
    request.principal = {
      accountId: found.accountId,
      via,
      keyId: found.keyId,
      policy: found.policy,
      rateLimitKey: `key:${found.keyId}`,
      member: null,
      identity: null,
    };
    request.pendingKeyCheck = found.settle;
  };
}

/**
 * The whole of authentication for a route that takes only a publishable key (the widget's check,
 * in a scope without the app's global hooks, ADR 0056): the same steps as authHook then
 * settleKey then authorizeKey, in that order, with the same refusals. Resolves once the key's
 * revocation check has settled.
 */
export function publishableAuthenticator(deps: Pick<AuthDeps, "keys" | "clock">) {
  const fromKey = keyAuthenticator(deps.keys);
  return async (request: FastifyRequest): Promise<void> => {
    request.principal = null;
    request.pendingKeyCheck = null;
    await fromKey(request, publishableKeyOf(request, request.headers["x-api-key"]), "publishable_key");
    await settleKey(request);
    authorizeKey(request, deps.clock.now());
  };
}

export function authHook(deps: AuthDeps) {
  async function fromJwt(request: FastifyRequest, token: string): Promise<Principal> {
    const identity = await deps.identity.verify(token);
    if (!identity) throw invalidToken();
    return asMember(request, identity, "jwt");
  }

  /**
   * A dashboard session cookie. Browsers send cookies on cross-site requests too, so a
   * state-changing request must also carry the session's CSRF token in X-CSRF-Token, which a
   * page of another origin cannot read (double submit against the server-side copy).
   */
  async function fromSession(request: FastifyRequest, sessionId: string): Promise<Principal> {
    const session = await deps.sso?.session(sessionId);
    if (!session) throw new AppError("UNAUTHORIZED", "Your session has ended: sign in again");
    if (!SAFE_METHODS.has(request.method)) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== "string" || !safeEqual(sent, session.csrfToken))
        throw new AppError("FORBIDDEN", "Missing or wrong CSRF token: send the session's X-CSRF-Token", {
          reason: "csrf",
        });
    }
    return asMember(request, session.identity, "session");
  }

  async function asMember(
    request: FastifyRequest,
    identity: Identity,
    via: "jwt" | "session",
  ): Promise<Principal> {
    const chosen = request.headers["x-account-id"];
    if (Array.isArray(chosen)) throw new AppError("BAD_REQUEST", "Send one X-Account-Id header");
    const named = chosen && chosen !== "" ? chosen : identity.accountId;
    // `<account>~test` opens that account's test data space to its members, with their role there
    // (ADR 0054). Identity routes (keys, team, sign-on) manage the account itself: the live one.
    const live = liveAccountOf(named);
    const accountId = routeOptionsOf(request).config?.auth === "identity" ? live : named;
    if (live === identity.accountId) await deps.credits.ensureAccount(live);
    const membership = await deps.teams.membership(live, identity.accountId, identity.email);
    // Not a member is the same 404 as an account that does not exist (decisions §8).
    if (membership.kind !== "member") throw new AppError("NOT_FOUND", "Account not found");
    const { memberId, role } = membership.member;
    return {
      accountId,
      via,
      keyId: null,
      policy: null,
      rateLimitKey: `acct:${accountId}`,
      member: { memberId, role },
      identity,
    };
  }

  const fromKey = keyAuthenticator(deps.keys);

  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    request.principal = null;
    request.pendingKeyCheck = null;
    const mode = routeOptionsOf(request).config?.auth ?? "none";
    if (mode === "none") return;

    if (mode === "admin") {
      if (!deps.adminToken) throw new AppError("NOT_FOUND", "Admin API is disabled (ADMIN_TOKEN is not set)");
      const token = bearerOf(request);
      if (!token) throw missing();
      if (!safeEqual(token, deps.adminToken)) throw new AppError("UNAUTHORIZED", "Invalid admin token");
      request.principal = {
        accountId: "admin",
        via: "admin",
        keyId: null,
        policy: null,
        rateLimitKey: "admin",
        member: null,
        identity: null,
      };
      return;
    }

    const apiKey = request.headers["x-api-key"];
    if (Array.isArray(apiKey)) throw invalidKey();
    const token = bearerOf(request);
    const sessionId = token || apiKey ? undefined : cookieOf(request, SESSION_COOKIE);
    if (sessionId && (mode === "identity" || mode === "data")) {
      request.principal = await fromSession(request, sessionId);
      return;
    }
    if (mode === "identity") {
      if (token) {
        request.principal = await fromJwt(request, token);
        return;
      }
      if (apiKey)
        throw new AppError("FORBIDDEN", "API keys cannot manage keys: use an identity provider token");
      throw missing();
    }

    if (mode === "publishable") return fromKey(request, publishableKeyOf(request, apiKey), "publishable_key");

    // data routes
    if (typeof apiKey === "string" && apiKey !== "") return fromKey(request, apiKey, "api_key");
    if (token) {
      request.principal = await fromJwt(request, token);
      return;
    }
    throw missing();
  };
}

/**
 * Awaits the revocation check of a key served from the cache (see KeysService.beginAuthenticate):
 * a key revoked since it was cached is refused here, before any handler runs.
 */
export async function settleKey(request: FastifyRequest): Promise<void> {
  const check = request.pendingKeyCheck;
  if (!check) return;
  request.pendingKeyCheck = null;
  if (!(await check())) {
    request.principal = null;
    throw invalidKey();
  }
}

const ROLE_CHECKED = (access: RouteAccess | undefined): access is RolePermission =>
  access !== undefined &&
  access !== "authenticated" &&
  access !== "none" &&
  access !== "identity" &&
  access !== "admin" &&
  access !== "publishable";

/**
 * Whether a settled publishable key may use the widget's check from `ip` at `now`: the rules
 * authorizeKey applies to a `publishable` route (expiry, source address, key type), for the
 * widget's front (src/http/widget-front.ts), which hands every other case to the app.
 */
export function isUsablePublishableKey(policy: KeyPolicy, ip: string, now: Date): boolean {
  return (
    policy.type === "publishable" &&
    (policy.expiresAt === null || policy.expiresAt > now.toISOString()) &&
    ipAllowed(policy.allowedIps, ip)
  );
}

/**
 * A member's role against the route's declared permission: 403 INSUFFICIENT_PERMISSIONS naming
 * the permission and the least role that holds it. Routes open to any identity (`identity`) pass.
 */
function authorizeMember(role: Role, access: RouteAccess | undefined): void {
  if (!ROLE_CHECKED(access) || roleAllows(role, access)) return;
  const requiredRole = requiredRoleFor(access);
  throw new AppError(
    "INSUFFICIENT_PERMISSIONS",
    `This needs the ${requiredRole} role or above (you are ${role})`,
    {
      required: access,
      requiredRole,
      role,
    },
  );
}

/**
 * Applies a settled key's policy to the request: expiry (401 with the reason), source address
 * (403 IP_NOT_ALLOWED), key type and the route's permission (403 INSUFFICIENT_PERMISSIONS with
 * details.required); and a member's role to a bearer request. The admin token passes: its
 * access is the route's `auth`.
 */
export function authorizeKey(request: FastifyRequest, now: Date): void {
  const principal = request.principal;
  if (principal?.member && isRole(principal.member.role)) {
    authorizeMember(principal.member.role, routeOptionsOf(request).config?.permission);
    if (isTestSpace(principal.accountId)) refuseLiveOnly(request, routeOptionsOf(request).config?.permission);
    return;
  }
  const policy = principal?.policy;
  if (!principal || !policy) return;
  if (policy.expiresAt !== null && policy.expiresAt <= now.toISOString())
    throw new AppError("INVALID_API_KEY", `This API key expired at ${policy.expiresAt}`, {
      reason: "expired",
      expiredAt: policy.expiresAt,
    });
  // request.ip is worked out on each read: only keys limited to addresses need it.
  if (policy.allowedIps !== null && !ipAllowed(policy.allowedIps, request.ip))
    throw new AppError("IP_NOT_ALLOWED", `This API key is not allowed from ${request.ip}`, {
      ip: request.ip,
    });
  const access = routeOptionsOf(request).config?.permission;
  if (access === "publishable") {
    if (policy.type !== "publishable")
      throw new AppError(
        "INSUFFICIENT_PERMISSIONS",
        "This endpoint takes a publishable key (pk_...); a secret key must never be put in a web page",
        { required: "publishable" },
      );
    return;
  }
  if (policy.type === "publishable")
    throw new AppError(
      "INSUFFICIENT_PERMISSIONS",
      "A publishable key works only on the widget endpoint (POST /v1/widget/check-email)",
      { required: access ?? "unknown", keyType: "publishable" },
    );
  if (access === "authenticated") return;
  if (access === undefined || access === "none" || access === "identity" || access === "admin")
    throw new AppError("INSUFFICIENT_PERMISSIONS", "This endpoint declares no permission a key can hold", {
      required: access ?? "undeclared",
    });
  const needed = keyPermissionFor(access);
  if (needed === null)
    throw new AppError("INSUFFICIENT_PERMISSIONS", "This endpoint is for team members, not API keys", {
      required: access,
    });
  if (!hasPermission(policy, needed))
    throw new AppError("INSUFFICIENT_PERMISSIONS", `This API key lacks the permission ${needed}`, {
      required: needed,
      granted: policy.permissions,
    });
  if (policy.mode === "test") refuseLiveOnly(request, needed);
}

/** A test data space never reaches a third party: live-only routes refuse it (ADR 0051, 0054). */
function refuseLiveOnly(request: FastifyRequest, required: RouteAccess | undefined): void {
  if (!routeOptionsOf(request).config?.liveOnly) return;
  throw new AppError(
    "INSUFFICIENT_PERMISSIONS",
    "Test data never reaches the network: this endpoint talks to a third party and needs live mode",
    { required: required ?? "undeclared", mode: "test", reason: "live_only" },
  );
}

/** The authenticated principal of a route that requires one. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError("UNAUTHORIZED", "Missing authentication");
  return request.principal;
}

const registries = new WeakMap<object, Map<string, RouteAccess | undefined>>();

/** Every route of the app ("POST /v1/leads") with the access it declared (undefined: none declared). */
export function routeAccessOf(app: object): ReadonlyMap<string, RouteAccess | undefined> {
  return registries.get(app) ?? new Map();
}

/** The registry an app's onRoute hook fills (see declareAccess). */
export function accessRegistryFor(app: object): Map<string, RouteAccess | undefined> {
  let registry = registries.get(app);
  if (!registry) {
    registry = new Map();
    registries.set(app, registry);
  }
  return registry;
}

/**
 * Records a route's declared access and shows it in the OpenAPI document: `x-permission` on the
 * operation and a sentence in its description. Called from the app's onRoute hook.
 */
export function declareAccess(
  route: { method: string | string[]; url: string; config?: unknown; schema?: Record<string, unknown> },
  registry: Map<string, RouteAccess | undefined>,
): void {
  const access = (route.config as { permission?: RouteAccess } | undefined)?.permission;
  for (const method of [route.method].flat()) {
    if (method === "HEAD") continue;
    registry.set(`${method} ${route.url}`, access);
  }
  const schema = route.schema;
  if (!schema || schema.hide || access === undefined) return;
  schema["x-permission"] = access;
  const liveOnly = (route.config as { liveOnly?: boolean } | undefined)?.liveOnly === true;
  const sentence = `${ACCESS_SENTENCES[access] ?? accessSentence(access as RolePermission)}${liveOnly ? " Live keys only: test-mode keys are refused." : ""}`;
  // A GET route's HEAD twin comes through here with the same schema object: add the sentence once.
  const description = schema.description === undefined ? "" : String(schema.description);
  if (!description.includes(sentence))
    schema.description = description ? `${description} ${sentence}` : sentence;
}

function accessSentence(access: RolePermission): string {
  const role = `Team members need the ${requiredRoleFor(access)} role or above (\`${access}\`).`;
  const key = keyPermissionFor(access);
  if (key === null) return `Identity JWT only; ${role}`;
  return `API keys need the permission \`${key}\`. ${role}`;
}

const ACCESS_SENTENCES: Partial<Record<RouteAccess, string>> = {
  authenticated: "Any API key, whatever its permissions.",
  none: "No authentication.",
  identity: "Identity JWT only; API keys are refused.",
  admin: "ADMIN_TOKEN only.",
  publishable: "Publishable key (pk_...) only, from one of its allowed origins.",
};
