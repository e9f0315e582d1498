// Dashboard sign-in for installs without an identity provider (docs/decisions/0008-dashboard-sign-in.md).
// `leadcheck dashboard link` mints a short-lived sign-in token (HS256 with AUTH_JWT_SECRET, marked
// by its `purpose` claim); the dashboard exchanges it once, at POST /v1/auth/session, for a session
// token: an ordinary HS256 identity token that IdentityVerifier accepts. Sign-in tokens themselves
// are refused as bearer tokens (see identity.ts), so a leaked link is worth one exchange at most.
import { randomBytes } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type { Clock } from "../lib/clock.js";
import type { Db } from "../storage/db.js";
import { ACCOUNT_ID, SIGNIN_PURPOSE } from "./identity.js";
import type { SigninTokensRepo } from "./signin-tokens.repo.js";

const SESSION_PURPOSE = "dashboard_session";
export const MAX_SIGNIN_TTL_MS = 24 * 3_600_000;
const SESSION_TTL_MS = 12 * 3_600_000;

export interface SigninOptions {
  /** AUTH_JWT_SECRET; sign-in links are off without it. */
  secret: string | undefined;
  /** AUTH_ISSUER / AUTH_AUDIENCE: set on minted tokens so IdentityVerifier's checks pass. */
  issuer?: string | undefined;
  audience?: string | undefined;
  clock: Clock;
}

export type SigninLinkOutcome =
  | { kind: "link"; token: string; url: string; expiresAt: string }
  | { kind: "disabled" }
  | { kind: "invalid_user" }
  | { kind: "invalid_ttl" };

export type ExchangeOutcome =
  | { kind: "session"; token: string; accountId: string; expiresAt: string }
  | { kind: "disabled" }
  | { kind: "invalid" }
  | { kind: "expired" }
  | { kind: "reused" };

/** "90s", "15m", "2h" in milliseconds; undefined for anything else. */
export function parseDurationMs(text: string): number | undefined {
  const m = /^\s*(\d{1,6})\s*(s|m|h)\s*$/i.exec(text);
  if (!m) return undefined;
  const unitMs = { s: 1000, m: 60_000, h: 3_600_000 }[m[2]!.toLowerCase() as "s" | "m" | "h"];
  return Number(m[1]) * unitMs;
}

/** The dashboard URL carrying a sign-in token in its fragment (fragments never reach the server). */
export function signinUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/dashboard/#signin=${token}`;
}

/** Mints sign-in links. Needs no database: the CLI calls it without opening one. */
export class SigninLinks {
  protected readonly key: Uint8Array | undefined;

  constructor(protected readonly options: SigninOptions) {
    this.key = options.secret ? new TextEncoder().encode(options.secret) : undefined;
  }

  get enabled(): boolean {
    return this.key !== undefined;
  }

  async createLink(accountId: string, ttlMs: number, baseUrl: string): Promise<SigninLinkOutcome> {
    if (!this.key) return { kind: "disabled" };
    if (!ACCOUNT_ID.test(accountId)) return { kind: "invalid_user" };
    if (!Number.isInteger(ttlMs) || ttlMs < 1000 || ttlMs > MAX_SIGNIN_TTL_MS) return { kind: "invalid_ttl" };
    const { token, expiresAt } = await this.sign(accountId, SIGNIN_PURPOSE, ttlMs);
    return { kind: "link", token, url: signinUrl(baseUrl, token), expiresAt };
  }

  protected async sign(accountId: string, purpose: string, ttlMs: number) {
    const nowS = Math.floor(this.options.clock.now().getTime() / 1000);
    const expS = nowS + Math.floor(ttlMs / 1000);
    let jwt = new SignJWT({ purpose })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(accountId)
      .setJti(randomBytes(16).toString("base64url"))
      .setIssuedAt(nowS)
      .setExpirationTime(expS);
    if (this.options.issuer) jwt = jwt.setIssuer(this.options.issuer);
    if (this.options.audience) jwt = jwt.setAudience(this.options.audience);
    return { token: await jwt.sign(this.key!), expiresAt: new Date(expS * 1000).toISOString() };
  }
}

/** Exchanges a sign-in token, once, for a session token. */
export class SigninService extends SigninLinks {
  constructor(
    private readonly db: Db,
    private readonly tokens: SigninTokensRepo,
    options: SigninOptions,
  ) {
    super(options);
  }

  async exchange(signinToken: string): Promise<ExchangeOutcome> {
    if (!this.key) return { kind: "disabled" };
    const now = this.options.clock.now();
    let claims: { sub?: unknown; jti?: unknown; exp?: unknown; purpose?: unknown };
    try {
      ({ payload: claims } = await jwtVerify(signinToken, this.key, {
        algorithms: ["HS256"],
        currentDate: now,
        issuer: this.options.issuer,
        audience: this.options.audience,
        requiredClaims: ["sub", "jti", "exp"],
      }));
    } catch (error) {
      return { kind: error instanceof joseErrors.JWTExpired ? "expired" : "invalid" };
    }
    const { sub, jti, exp, purpose } = claims;
    if (purpose !== SIGNIN_PURPOSE || typeof sub !== "string" || !ACCOUNT_ID.test(sub)) {
      return { kind: "invalid" };
    }
    if (typeof jti !== "string" || jti.length > 200 || typeof exp !== "number") return { kind: "invalid" };

    const nowIso = now.toISOString();
    await this.tokens.deleteExpired(this.db, nowIso);
    const expiresAt = new Date(exp * 1000).toISOString();
    const isFirstUse = await this.tokens.markUsedOnce(this.db, {
      jti,
      account_id: sub,
      used_at: nowIso,
      expires_at: expiresAt,
    });
    if (!isFirstUse) return { kind: "reused" };

    const session = await this.sign(sub, SESSION_PURPOSE, SESSION_TTL_MS);
    return { kind: "session", token: session.token, accountId: sub, expiresAt: session.expiresAt };
  }
}
