// Single sign-on settings (OIDC_*), parsed with the rest of the configuration. SSO is on only
// when the issuer and the client id are both set.
export interface OidcConfig {
  /** OIDC_ISSUER: the identity provider's issuer URL (its discovery document is read from it). */
  issuer: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** OIDC_REDIRECT_URL: where the provider sends the browser back; default PUBLIC_URL + the callback path. */
  redirectUrl: string | undefined;
  /** Dashboard session lifetime (OIDC_SESSION_TTL_MS, default 12 h). */
  sessionTtlMs: number;
}

export function loadOidcConfig(env: Record<string, string | undefined>): OidcConfig {
  const text = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const ttl = Number(text("OIDC_SESSION_TTL_MS") ?? 12 * 3_600_000);
  if (!Number.isInteger(ttl) || ttl < 60_000)
    throw new Error("OIDC_SESSION_TTL_MS must be an integer of at least 60000");
  return {
    issuer: text("OIDC_ISSUER"),
    clientId: text("OIDC_CLIENT_ID"),
    clientSecret: text("OIDC_CLIENT_SECRET"),
    redirectUrl: text("OIDC_REDIRECT_URL"),
    sessionTtlMs: ttl,
  };
}
