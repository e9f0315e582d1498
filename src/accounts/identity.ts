// Verifies identity-provider bearer JWTs: against a JWKS (RS256/ES256, AUTH_JWKS_URL) or an HS256
// shared secret (AUTH_JWT_SECRET). The `sub` claim is the account id.
import { createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from "jose";

export interface IdentityOptions {
  jwksUrl?: string | undefined;
  issuer?: string | undefined;
  audience?: string | undefined;
  jwtSecret?: string | undefined;
}

export interface Identity {
  /** The subject: the identity's own account id, and its member subject in other accounts. */
  accountId: string;
  /** The provider's `email` claim, and whether the provider verified it (`email_verified`). */
  email: string | null;
  emailVerified: boolean;
}

export const ACCOUNT_ID = /^[A-Za-z0-9._:@|-]{1,128}$/;

/** The `purpose` of dashboard sign-in tokens (signin.service.ts): exchanged once, never a bearer token. */
export const SIGNIN_PURPOSE = "dashboard_signin";

export class IdentityVerifier {
  private readonly jwks: JWTVerifyGetKey | undefined;
  private readonly secret: Uint8Array | undefined;

  constructor(private readonly options: IdentityOptions) {
    this.jwks = options.jwksUrl ? createRemoteJWKSet(new URL(options.jwksUrl)) : undefined;
    this.secret = options.jwtSecret ? new TextEncoder().encode(options.jwtSecret) : undefined;
  }

  get enabled(): boolean {
    return Boolean(this.jwks || this.secret);
  }

  /** The identity in a valid token, or undefined for anything else (bad signature, expired, ...). */
  async verify(token: string): Promise<Identity | undefined> {
    const claims = { issuer: this.options.issuer, audience: this.options.audience };
    const attempts: (() => ReturnType<typeof jwtVerify>)[] = [];
    if (this.jwks) {
      const jwks = this.jwks;
      attempts.push(() =>
        jwtVerify(token, jwks, { ...claims, algorithms: ["RS256", "ES256", "PS256", "EdDSA"] }),
      );
    }
    if (this.secret) {
      const secret = this.secret;
      attempts.push(() => jwtVerify(token, secret, { ...claims, algorithms: ["HS256"] }));
    }
    for (const attempt of attempts) {
      try {
        const { payload } = await attempt();
        if (payload.purpose === SIGNIN_PURPOSE) return undefined;
        if (typeof payload.sub === "string" && ACCOUNT_ID.test(payload.sub))
          return {
            accountId: payload.sub,
            email: typeof payload.email === "string" ? payload.email : null,
            emailVerified: payload.email_verified === true,
          };
        return undefined;
      } catch {
        // try the next verifier
      }
    }
    return undefined;
  }
}
