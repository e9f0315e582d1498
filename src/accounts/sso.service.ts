// Dashboard single sign-on: the OpenID Connect authorization-code flow with PKCE through
// openid-client (a certified relying party), and server-side sessions. The browser holds only a
// random session id in an HttpOnly cookie; its hash, the identity and a CSRF token are stored
// here, so logout (and expiry) end a session on every instance at once. A method returns its
// success; a refusal is thrown as the domain's failure (ADR 0075): SSO not configured is
// not_found, a provider out of reach unavailable, and a sign-in that cannot complete (an unknown
// or used state, an answer the provider or openid-client refused) rejected, to start again.
import { createHash, randomBytes } from "node:crypto";
import * as oidc from "openid-client";
import type { Clock } from "../lib/clock.js";
import { type DomainError, fail, notFound } from "../lib/errors.js";
import type { Db } from "../storage/db.js";
import { runInTransaction } from "../storage/transaction.js";
import type { Identity } from "./identity.js";
import { ACCOUNT_ID } from "./identity.js";
import type { OidcConfig } from "./oidc-config.js";
import type { SsoRepo } from "./sso.repo.js";

const LOGIN_TTL_MS = 10 * 60_000;

export interface SsoSession {
  identity: Identity;
  csrfToken: string;
  expiresAt: string;
}

const disabled = (): DomainError => notFound("Single sign-on (OIDC_ISSUER is not set)");
/** The provider's answer failed a check (or its subject is unusable); the cause is not shown. */
const refused = (): DomainError =>
  fail({
    kind: "rejected",
    message: "The identity provider's answer was refused: start again",
    details: { reason: "token_exchange" },
  });

const hash = (value: string) => createHash("sha256").update(value).digest("hex");

/** Plain HTTP to the provider only for a loopback issuer (tests, local development). */
export const isLoopbackHttp = (url: string) =>
  /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$)/.test(url);

export class SsoService {
  private configuration: Promise<oidc.Configuration> | undefined;

  get redirectUrl(): string {
    return this.settings.redirectUrl;
  }

  constructor(
    private readonly settings: OidcConfig & { redirectUrl: string },
    private readonly db: Db,
    private readonly repo: SsoRepo,
    private readonly clock: Clock,
  ) {}

  get enabled(): boolean {
    return Boolean(this.settings.issuer && this.settings.clientId);
  }

  private discover(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const { issuer, clientId, clientSecret } = this.settings;
      this.configuration = oidc
        .discovery(new URL(issuer!), clientId!, clientSecret, undefined, {
          ...(isLoopbackHttp(issuer!) ? { execute: [oidc.allowInsecureRequests] } : {}),
        })
        .catch((error: unknown) => {
          this.configuration = undefined;
          throw error;
        });
    }
    return this.configuration;
  }

  /** Starts a sign-in: a fresh state, nonce and PKCE verifier, kept server-side for 10 minutes. */
  async start(): Promise<{ url: string }> {
    if (!this.enabled) throw disabled();
    let configuration: oidc.Configuration;
    try {
      configuration = await this.discover();
    } catch {
      throw fail({ kind: "unavailable", message: "The identity provider cannot be reached" });
    }
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const now = this.clock.now();
    await this.repo.deleteExpiredLogins(this.db, now.toISOString());
    await this.repo.insertLogin(this.db, {
      state,
      nonce,
      code_verifier: codeVerifier,
      expires_at: new Date(now.getTime() + LOGIN_TTL_MS).toISOString(),
    });
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.settings.redirectUrl,
      scope: "openid email profile",
      response_type: "code",
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
    });
    return { url: url.href };
  }

  /**
   * Completes a sign-in from the provider's redirect. The state must be one we started and not
   * yet answered (taken once); openid-client checks the state, the PKCE verifier, the ID token's
   * signature, issuer, audience and nonce; the provider refuses a code used before.
   */
  async callback(currentUrl: URL): Promise<{ sessionId: string; session: SsoSession }> {
    if (!this.enabled) throw disabled();
    const state = currentUrl.searchParams.get("state");
    const started = state
      ? await runInTransaction(this.db, (trx) => this.repo.takeLogin(trx, state))
      : undefined;
    if (!started || started.expires_at <= this.clock.now().toISOString())
      throw fail({
        kind: "rejected",
        message: "Unknown, expired or already used sign-in state: start again",
        details: { reason: "state" },
      });
    let claims: oidc.IDToken | undefined;
    let email: unknown;
    let emailVerified: unknown;
    try {
      const configuration = await this.discover();
      const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: started.code_verifier,
        expectedState: started.state,
        expectedNonce: started.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
      email = claims?.email;
      emailVerified = claims?.email_verified;
      // Providers may keep the email claims out of the ID token (oidc-provider does): ask UserInfo,
      // which openid-client checks against the ID token's subject.
      if (claims && email === undefined) {
        const info = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
        ({ email, email_verified: emailVerified } = info);
      }
    } catch {
      throw refused();
    }
    if (!claims || !ACCOUNT_ID.test(claims.sub)) throw refused();
    const now = this.clock.now();
    const sessionId = randomBytes(32).toString("base64url");
    const session: SsoSession = {
      identity: {
        accountId: claims.sub,
        email: typeof email === "string" ? email : null,
        emailVerified: emailVerified === true,
      },
      csrfToken: randomBytes(24).toString("base64url"),
      expiresAt: new Date(now.getTime() + this.settings.sessionTtlMs).toISOString(),
    };
    await this.repo.insertSession(this.db, {
      id_hash: hash(sessionId),
      subject: session.identity.accountId,
      email: session.identity.email,
      email_verified: session.identity.emailVerified ? 1 : 0,
      csrf_token: session.csrfToken,
      created_at: now.toISOString(),
      expires_at: session.expiresAt,
      ended_at: null,
    });
    return { sessionId, session };
  }

  /** The live session a cookie value names, or undefined (unknown, expired or logged out). */
  async session(sessionId: string): Promise<SsoSession | undefined> {
    const row = await this.repo.findLiveSession(this.db, hash(sessionId), this.clock.now().toISOString());
    if (!row) return undefined;
    return {
      identity: { accountId: row.subject, email: row.email, emailVerified: row.email_verified === 1 },
      csrfToken: row.csrf_token,
      expiresAt: row.expires_at,
    };
  }

  async logout(sessionId: string): Promise<void> {
    await this.repo.endSession(this.db, hash(sessionId), this.clock.now().toISOString());
  }
}
