// The shell: sign-in when there is no credential, otherwise the navigation and the current page.
// A sign-in link's token is taken from the address once, at start, and exchanged for a session.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { LeadcheckError } from "../../sdk/src/errors.js";
import { type Api, ApiContext, makeGuard, useApi } from "./api.js";
import { NetworkBanner } from "./components/network-banner.js";
import { BatchPage } from "./pages/batch.js";
import { CreditsPage } from "./pages/credits.js";
import { ImportPage } from "./pages/import.js";
import { KeysPage } from "./pages/keys.js";
import { LeadPage } from "./pages/lead.js";
import { LeadsPage } from "./pages/leads.js";
import { OverviewPage } from "./pages/overview.js";
import { SignInPage } from "./pages/signin.js";
import { WebhooksPage } from "./pages/webhooks.js";
import { Link, match, navigate, useLocation } from "./router.js";
import {
  clearSession,
  clientFor,
  exchangeSigninToken,
  loadSession,
  type Session,
  saveSession,
  takeSigninToken,
} from "./session.js";

const NAV = [
  { to: "/", label: "Overview" },
  { to: "/leads", label: "Leads" },
  { to: "/import", label: "Import" },
  { to: "/keys", label: "API keys" },
  { to: "/credits", label: "Credits" },
  { to: "/webhooks", label: "Webhooks" },
];

type Exchange = ReturnType<typeof exchangeSigninToken>;

// Read before the first render, so the token leaves the address bar at once, and exchanged once
// (a second exchange of the same link is refused by design).
const initialToken = takeSigninToken();
const initialExchange: Exchange | null = initialToken === null ? null : exchangeSigninToken(initialToken);

export function App() {
  const [exchange, setExchange] = useState<Exchange | null>(initialExchange);
  const [session, setSession] = useState<Session | null>(() => (initialExchange ? null : loadSession()));
  const [notice, setNotice] = useState<{ kind: "error" | "info"; text: string } | null>(null);

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
  const signOut = useCallback((message?: string) => {
    if (!signedIn.current) return;
    signedIn.current = false;
    clearSession();
    setSession(null);
    setNotice(message ? { kind: "error", text: message } : { kind: "info", text: "You are signed out." });
  }, []);

  const api = useMemo<Api | null>(
    () => (session ? { client: clientFor(session), session, signOut, guard: makeGuard(signOut) } : null),
    [session, signOut],
  );

  if (exchange !== null) {
    return (
      <main className="signin">
        <p role="status">Signing you in…</p>
      </main>
    );
  }
  if (!api) return <SignInPage notice={notice} onSignedIn={signIn} />;
  return (
    <ApiContext.Provider value={api}>
      <Shell />
    </ApiContext.Provider>
  );
}

function Shell() {
  const { path } = useLocation();
  const api = useApi();
  return (
    <>
      <header className="top">
        <Link to="/" className="brand">
          leadcheck
        </Link>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.to}>
                <Link
                  to={item.to}
                  aria-current={
                    (item.to === "/" ? path === "/" : path.startsWith(item.to)) ? "page" : undefined
                  }
                >
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span data-testid="signed-in-as">
            {api.session.accountId ?? (api.session.kind === "api_key" ? "API key" : "signed in")}
          </span>
          <button type="button" onClick={() => api.signOut()} data-testid="sign-out">
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <NetworkBanner />
        <Page path={path} />
      </main>
    </>
  );
}

function Page({ path }: { path: string }) {
  if (path === "/") return <OverviewPage />;
  if (path === "/signin" || path === "/overview") return <Redirect to="/" />;
  if (path === "/leads") return <LeadsPage />;
  const lead = match("/leads/:id", path);
  if (lead) return <LeadPage leadId={lead.id!} />;
  if (path === "/import") return <ImportPage />;
  const batch = match("/batches/:id", path);
  if (batch) return <BatchPage batchId={batch.id!} />;
  if (path === "/keys") return <KeysPage />;
  if (path === "/credits") return <CreditsPage />;
  if (path === "/webhooks") return <WebhooksPage />;
  const webhook = match("/webhooks/:id", path);
  if (webhook) return <WebhooksPage selected={webhook.id!} />;
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no page at this address. Go to <Link to="/leads">your leads</Link>.
      </p>
    </section>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
