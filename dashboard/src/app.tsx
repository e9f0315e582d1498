// The shell: sign-in when there is no credential, otherwise the signed-in workspace (signed-in.tsx).
// A sign-in link's token is taken from the address once, at start, and exchanged for a session;
// without one, a single sign-on cookie is looked for (the identity provider's redirect lands here).
import { useCallback, useEffect, useRef, useState } from "react";
import { LeadcheckError } from "../../sdk/src/errors.js";
import { SignInPage } from "./pages/signin.js";
import { navigate } from "./router.js";
import {
  clearSession,
  endSsoSession,
  exchangeSigninToken,
  findSsoSession,
  loadSession,
  type Session,
  saveSession,
  takeSigninToken,
} from "./session.js";
import { SignedIn } from "./signed-in.js";

type Exchange = ReturnType<typeof exchangeSigninToken>;

// Read before the first render, so the token leaves the address bar at once, and exchanged once
// (a second exchange of the same link is refused by design).
const initialToken = takeSigninToken();
const initialExchange: Exchange | null = initialToken === null ? null : exchangeSigninToken(initialToken);
// No credential in this tab: the browser may hold a single sign-on cookie (HttpOnly: only the server knows).
const initialSso: Promise<Session | null> | null =
  initialExchange === null && loadSession() === null ? findSsoSession() : null;

export function App() {
  const [exchange, setExchange] = useState<Exchange | null>(initialExchange);
  const [session, setSession] = useState<Session | null>(() => (initialExchange ? null : loadSession()));
  const [notice, setNotice] = useState<{ kind: "error" | "info"; text: string } | null>(null);
  const [ssoProbe, setSsoProbe] = useState(initialSso);

  useEffect(() => {
    if (ssoProbe === null) return;
    let cancelled = false;
    ssoProbe.then((found) => {
      if (cancelled) return;
      if (found) setSession(found);
      setSsoProbe(null);
    });
    return () => {
      cancelled = true;
    };
  }, [ssoProbe]);

  // A link opened in a tab that already shows the dashboard only changes the fragment.
  useEffect(() => {
    const onHashChange = () => {
      const token = takeSigninToken();
      if (token !== null) setExchange(exchangeSigninToken(token));
    };
    window.addEventListener("hashchange", onHashChange);
    return () => window.removeEventListener("hashchange", onHashChange);
  }, []);

  useEffect(() => {
    if (exchange === null) return;
    let cancelled = false;
    exchange.then((outcome) => {
      if (cancelled) return;
      if (outcome.ok) {
        saveSession(outcome.session);
        setSession(outcome.session);
        setNotice(null);
      } else {
        clearSession();
        setSession(null);
        const reason = outcome.error instanceof LeadcheckError ? `: ${outcome.error.message}` : ".";
        setNotice({ kind: "error", text: `That sign-in link did not work${reason}` });
      }
      setExchange(null);
    });
    return () => {
      cancelled = true;
    };
  }, [exchange]);

  const signIn = useCallback((next: Session) => {
    saveSession(next);
    setNotice(null);
    setSession(next);
    navigate("/", { replace: true });
  }, []);

  // Several calls can fail with 401 at once: the first one signs out and its reason is kept.
  const signedIn = useRef(session !== null);
  signedIn.current = session !== null;
  const current = useRef(session);
  current.current = session;
  const signOut = useCallback((message?: string) => {
    if (!signedIn.current) return;
    signedIn.current = false;
    clearSession();
    if (current.current?.kind === "sso") void endSsoSession(current.current);
    setSession(null);
    setNotice(message ? { kind: "error", text: message } : { kind: "info", text: "You are signed out." });
  }, []);

  if (ssoProbe !== null) {
    return (
      <main className="signin">
        <p role="status">Checking your sign-in…</p>
      </main>
    );
  }
  if (exchange !== null) {
    return (
      <main className="signin">
        <p role="status">Signing you in…</p>
      </main>
    );
  }
  if (!session) return <SignInPage notice={notice} onSignedIn={signIn} />;
  return <SignedIn session={session} signOut={signOut} />;
}
