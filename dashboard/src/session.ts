// The signed-in credential, kept in sessionStorage (gone when the tab closes), and the SDK client
// built from it. Every call to the API goes through the SDK: the dashboard holds no API rules.
// A single sign-on session lives in an HttpOnly cookie the page cannot read: it is found by asking
// the server (GET /v1/auth/sso/session), which also hands over the CSRF token writes must carry.
import type { ResponseBody } from "../../sdk/src/api-types.js";
import { LeadcheckClient } from "../../sdk/src/client.js";
import { Transport } from "../../sdk/src/transport.js";

export type SessionKind = "link" | "identity" | "api_key" | "sso";

export interface Session {
  kind: SessionKind;
  /** A session or identity-provider token (sent as Bearer), an API key (sent as X-API-Key), or for
   *  "sso" the cookie session's CSRF token (the cookie itself is the credential). */
  credential: string;
  /** Known for sign-in links; identity-provider tokens and API keys do not say it up front. */
  accountId: string | null;
  expiresAt: string | null;
}

const STORAGE_KEY = "leadcheck.session";

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Session;
    if (typeof value?.credential !== "string" || !value.credential) return null;
    if (value.expiresAt && Date.parse(value.expiresAt) <= Date.now()) {
      clearSession();
      return null;
    }
    return value;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** The API lives on the same origin as the dashboard. */
const baseUrl = () => window.location.origin;

/** The browser's fetch, called on `window` (a detached `fetch` throws "Illegal invocation"). */
export const browserFetch: typeof fetch = (input, init) => window.fetch(input, init);

/** The SDK client for a session, acting in `accountId` when it is a person's other account. */
export function clientFor(session: Session, accountId: string | null = null): LeadcheckClient {
  const credential =
    session.kind === "api_key"
      ? { apiKey: session.credential }
      : session.kind === "sso"
        ? { cookieSession: { csrfToken: session.credential } }
        : { token: session.credential };
  return new LeadcheckClient({
    baseUrl: baseUrl(),
    fetch: browserFetch,
    ...credential,
    ...(accountId && session.kind !== "api_key" ? { headers: { "x-account-id": accountId } } : {}),
    // A person is waiting: retry a 429 once if it clears soon, otherwise show it.
    maxRetries: 1,
    maxRetryWaitMs: 5000,
    timeoutMs: 60_000,
  });
}

type SessionExchange = ResponseBody<"/v1/auth/session", "post">;

/** Trades the one-time token of a sign-in link for a session (POST /v1/auth/session). Never throws. */
export async function exchangeSigninToken(
  token: string,
): Promise<{ ok: true; session: Session } | { ok: false; error: unknown }> {
  const http = new Transport({ baseUrl: baseUrl(), fetch: browserFetch, maxRetries: 0 });
  try {
    const answer = await http.json<SessionExchange>({
      method: "POST",
      path: "/v1/auth/session",
      auth: "none",
      body: { token },
    });
    return {
      ok: true,
      session: {
        kind: "link",
        credential: answer.token,
        accountId: answer.account_id,
        expiresAt: answer.expires_at,
      },
    };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Reads `#signin=<token>` from the address and removes it at once (history included). */
export function takeSigninToken(): string | null {
  const match = /^#signin=([A-Za-z0-9._-]+)$/.exec(window.location.hash);
  if (!window.location.hash.startsWith("#signin=")) return null;
  window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
  return match ? match[1]! : "";
}

type SsoSessionAnswer = ResponseBody<"/v1/auth/sso/session", "get">;

/**
 * The single sign-on session the browser's cookie holds, or null (no cookie, ended, or SSO off:
 * the server answers 401). Never throws: a server that cannot be reached means no session.
 */
export async function findSsoSession(): Promise<Session | null> {
  const http = new Transport({ baseUrl: baseUrl(), fetch: browserFetch, maxRetries: 0 });
  try {
    const answer = await http.json<SsoSessionAnswer>({
      method: "GET",
      path: "/v1/auth/sso/session",
      auth: "none",
    });
    if (!answer.csrfToken) return null;
    return { kind: "sso", credential: answer.csrfToken, accountId: answer.accountId, expiresAt: null };
  } catch {
    return null;
  }
}

/** Ends the single sign-on session on the server (the cookie is refused from then on). */
export async function endSsoSession(session: Session): Promise<void> {
  if (session.kind !== "sso") return;
  const http = new Transport({
    baseUrl: baseUrl(),
    fetch: browserFetch,
    maxRetries: 0,
    cookieSession: { csrfToken: session.credential },
  });
  await http.json({ method: "POST", path: "/v1/auth/sso/logout", auth: "identity" }).catch(() => undefined);
}

const ACCOUNT_KEY = "leadcheck.account";

/** The account a person last chose in the switcher: kept across reloads and tabs (localStorage). */
export function loadAccountChoice(): string | null {
  try {
    return localStorage.getItem(ACCOUNT_KEY) || null;
  } catch {
    return null;
  }
}

export function saveAccountChoice(accountId: string | null): void {
  try {
    if (accountId) localStorage.setItem(ACCOUNT_KEY, accountId);
    else localStorage.removeItem(ACCOUNT_KEY);
  } catch {
    // Storage refused (private mode): the choice lasts until the tab closes.
  }
}
