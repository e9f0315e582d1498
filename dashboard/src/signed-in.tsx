// The signed-in workspace: who the caller is in the account on screen (GET /v1/me), the account
// switcher for a person in several accounts (X-Account-Id, the choice kept across reloads), the
// test-data switch (the account's test space, ADR 0054) with its banner, the navigation a role may
// use, and the current page. Switching accounts rebuilds the client and
// remounts the pages, so nothing of the previous account stays on screen.
import { useCallback, useEffect, useMemo, useState } from "react";
import type { Me } from "../../sdk/src/api-types.js";
import { LeadcheckError } from "../../sdk/src/errors.js";
import { type Api, ApiContext, makeGuard, useApi } from "./api.js";
import { AccountSwitcher } from "./components/account-switcher.js";
import { NetworkBanner } from "./components/network-banner.js";
import { ErrorMessage } from "./components/ui.js";
import { MeContext, type Permission, useCan, useMe } from "./me.js";
import { AuditPage } from "./pages/audit.js";
import { BatchPage } from "./pages/batch.js";
import { ConnectionsPage } from "./pages/connections.js";
import { CreditsPage } from "./pages/credits.js";
import { ImportPage } from "./pages/import.js";
import { InvitationBanner } from "./pages/invitation.js";
import { KeysPage } from "./pages/keys.js";
import { LeadPage } from "./pages/lead.js";
import { LeadsPage } from "./pages/leads.js";
import { OverviewPage } from "./pages/overview.js";
import { SettingsPage } from "./pages/settings.js";
import { TeamPage } from "./pages/team.js";
import { isTestSpace, TestModeBanner, TestViewSwitch } from "./pages/test-mode.js";
import { WebhooksPage } from "./pages/webhooks.js";
import { WidgetPage } from "./pages/widget.js";
import { Link, match, navigate, useLocation } from "./router.js";
import { clientFor, loadAccountChoice, type Session, saveAccountChoice } from "./session.js";

interface NavItem {
  to: string;
  label: string;
  /** Shown only to a caller holding it (the page's own read permission). */
  needs?: Permission;
  /** Pages for people only: an API key cannot reach their endpoints at all. */
  people?: boolean;
  /** Shown to an API key session whatever it holds: the page explains what it needs instead. */
  explainsToKeys?: boolean;
}

const NAV: NavItem[] = [
  { to: "/", label: "Overview" },
  { to: "/leads", label: "Leads", needs: "leads:read" },
  { to: "/import", label: "Import", needs: "leads:write" },
  { to: "/keys", label: "API keys", needs: "keys:write", explainsToKeys: true },
  { to: "/widget", label: "Widget", needs: "keys:write", people: true },
  { to: "/credits", label: "Credits", needs: "credits:read" },
  { to: "/webhooks", label: "Webhooks", needs: "webhooks:read" },
  { to: "/connections", label: "Connections", needs: "connections:write" },
  { to: "/team", label: "Team", needs: "team:read", people: true },
  { to: "/audit", label: "Audit log", needs: "audit:read" },
  { to: "/settings", label: "Settings", needs: "data:admin" },
];

export function SignedIn({ session, signOut }: { session: Session; signOut(message?: string): void }) {
  const [account, setAccount] = useState<string | null>(() =>
    session.kind === "api_key" ? null : loadAccountChoice(),
  );
  const api = useMemo<Api>(
    () => ({ client: clientFor(session, account), session, signOut, guard: makeGuard(signOut) }),
    [session, account, signOut],
  );
  const [me, setMe] = useState<{ data?: Me; error?: unknown }>({});
  const [tick, setTick] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: tick asks for the same call again
  useEffect(() => {
    const controller = new AbortController();
    setMe({});
    api.guard(api.client.me({ signal: controller.signal }), controller.signal).then(
      (data) => !controller.signal.aborted && setMe({ data }),
      (error) => {
        if (controller.signal.aborted) return;
        // The chosen account is no longer theirs (removed, or another person in this browser):
        // back to their own account rather than an error.
        if (error instanceof LeadcheckError && error.status === 404 && account !== null) {
          saveAccountChoice(null);
          setAccount(null);
          return;
        }
        setMe({ error });
      },
    );
    return () => controller.abort();
  }, [api, tick]);

  const switchTo = useCallback((accountId: string) => {
    saveAccountChoice(accountId);
    setAccount(accountId);
    // A detail page (a lead, a batch) belongs to the account it was opened in.
    const section = window.location.pathname.split("/")[2];
    navigate(section ? `/${section}` : "/", { replace: true });
  }, []);

  if (me.error) {
    return (
      <main className="signin">
        <ErrorMessage error={me.error} title="Your workspace could not be opened." />
        <p className="actions">
          <button type="button" onClick={() => setTick((t) => t + 1)}>
            Try again
          </button>
          <button type="button" onClick={() => signOut()}>
            Sign out
          </button>
        </p>
      </main>
    );
  }
  if (!me.data) {
    return (
      <main className="signin">
        <p role="status">Opening your workspace…</p>
      </main>
    );
  }
  return (
    <ApiContext.Provider value={api}>
      <MeContext.Provider value={me.data}>
        <Shell key={me.data.accountId} onSwitch={switchTo} onJoined={switchTo} />
      </MeContext.Provider>
    </ApiContext.Provider>
  );
}

function Shell({
  onSwitch,
  onJoined,
}: {
  onSwitch(accountId: string): void;
  onJoined(accountId: string): void;
}) {
  const { path } = useLocation();
  const api = useApi();
  const me = useMe();
  const can = useCan();
  const person = me.member !== null;
  const items = NAV.filter(
    (item) =>
      (!item.needs || can(item.needs) || (item.explainsToKeys && !person)) && (!item.people || person),
  );
  return (
    <>
      <header className="top">
        <Link to="/" className="brand">
          leadcheck
        </Link>
        <nav aria-label="Main">
          <ul>
            {items.map((item) => (
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
          <AccountSwitcher onSwitch={onSwitch} />
          {person ? <TestViewSwitch accountId={me.accountId} onSwitch={onSwitch} /> : null}
          <button type="button" onClick={() => api.signOut()} data-testid="sign-out">
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        {isTestSpace(me.accountId) ? (
          <TestModeBanner testId="test-view-banner">
            You are looking at test data: what your test-mode keys made, with scripted answers that are never
            charged and never reach the network.{" "}
            {person ? "Switch “Test data” off for your live data." : "You signed in with a test-mode key."}
          </TestModeBanner>
        ) : null}
        <NetworkBanner />
        {person ? <InvitationBanner onJoined={onJoined} /> : null}
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
  if (path === "/widget") return <WidgetPage />;
  if (path === "/credits") return <CreditsPage />;
  if (path === "/webhooks") return <WebhooksPage />;
  if (path === "/connections") return <ConnectionsPage />;
  const webhook = match("/webhooks/:id", path);
  if (webhook) return <WebhooksPage selected={webhook.id!} />;
  if (path === "/team") return <TeamPage />;
  if (path === "/audit") return <AuditPage />;
  if (path === "/settings") return <SettingsPage />;
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
