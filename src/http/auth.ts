// Authentication per route (decisions §2): data routes take `X-API-Key` or an identity JWT;
// `/v1/auth/keys` takes only the identity JWT (an API key there is 403); admin routes take
// ADMIN_TOKEN and are off (404) when it is unset. Runs in onRequest, before the body is read.
import { timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { IdentityVerifier } from "../accounts/identity.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { KeysService } from "../keys/keys.service.js";
import { AppError } from "./errors.js";

export type AuthMode = "none" | "data" | "identity" | "admin";

export interface Principal {
  accountId: string;
  via: "api_key" | "jwt" | "admin";
  keyId: string | null;
  /** What rate limits count against: the key for API keys, the account for JWTs. */
  rateLimitKey: string;
}

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: AuthMode;
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
  adminToken: string | undefined;
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

export function authHook(deps: AuthDeps) {
  async function fromJwt(token: string): Promise<Principal> {
    const identity = await deps.identity.verify(token);
    if (!identity) throw invalidToken();
    await deps.credits.ensureAccount(identity.accountId);
    return {
      accountId: identity.accountId,
      via: "jwt",
      keyId: null,
      rateLimitKey: `acct:${identity.accountId}`,
    };
  }

  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    request.principal = null;
    request.pendingKeyCheck = null;
    const mode = request.routeOptions.config?.auth ?? "none";
    if (mode === "none") return;

    if (mode === "admin") {
      if (!deps.adminToken) throw new AppError("NOT_FOUND", "Admin API is disabled (ADMIN_TOKEN is not set)");
      const token = bearerOf(request);
      if (!token) throw missing();
      if (!safeEqual(token, deps.adminToken)) throw new AppError("UNAUTHORIZED", "Invalid admin token");
      request.principal = { accountId: "admin", via: "admin", keyId: null, rateLimitKey: "admin" };
      return;
    }

    const apiKey = request.headers["x-api-key"];
    const token = bearerOf(request);
    if (mode === "identity") {
      if (token) {
        request.principal = await fromJwt(token);
        return;
      }
      if (apiKey)
        throw new AppError("FORBIDDEN", "API keys cannot manage keys: use an identity provider token");
      throw missing();
    }

    // data routes
    if (typeof apiKey === "string" && apiKey !== "") {
      const found = await deps.keys.beginAuthenticate(apiKey.trim());
      if (!found) throw invalidKey();
      request.principal = {
        accountId: found.accountId,
        via: "api_key",
        keyId: found.keyId,
        rateLimitKey: `key:${found.keyId}`,
      };
      request.pendingKeyCheck = found.settle;
      return;
    }
    if (Array.isArray(apiKey)) throw invalidKey();
    if (token) {
      request.principal = await fromJwt(token);
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

/** The authenticated principal of a route that requires one. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError("UNAUTHORIZED", "Missing authentication");
  return request.principal;
}
