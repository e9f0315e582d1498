// An invitation link (/dashboard/#invitation=inv_...) opened by a signed-in person: the invitation
// is accepted with their own identity (the server checks the invited email, verified by their
// identity provider) and the dashboard switches to the account they joined.
import { useEffect, useState } from "react";
import { useApi } from "../api.js";
import { ErrorMessage } from "../components/ui.js";

const INVITATION = /^#invitation=([A-Za-z0-9_-]+)$/;

/** Reads `#invitation=<token>` and removes it from the address (history included). */
function takeInvitationToken(): string | null {
  const found = INVITATION.exec(window.location.hash);
  if (!found) return null;
  window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
  return found[1]!;
}

export function InvitationBanner({ onJoined }: { onJoined(accountId: string): void }) {
  const { client, guard } = useApi();
  const [token, setToken] = useState<string | null>(takeInvitationToken);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const onHash = () => {
      const next = takeInvitationToken();
      if (next) setToken(next);
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  if (!token) return null;
  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      const joined = await guard(client.team.accept(token));
      setToken(null);
      onJoined(joined.accountId);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return (
    <section className="panel info" aria-label="Invitation" data-testid="invitation">
      <p>
        <strong>You were invited to join a team.</strong> Accept to work in its account with the role it gives
        you; your own account stays yours.
      </p>
      <ErrorMessage error={error} title="The invitation could not be accepted." />
      <p className="actions">
        <button type="button" onClick={accept} disabled={busy} data-testid="accept-invitation">
          {busy ? "Accepting…" : "Accept invitation"}
        </button>
        <button type="button" onClick={() => setToken(null)} disabled={busy}>
          Not now
        </button>
      </p>
    </section>
  );
}
