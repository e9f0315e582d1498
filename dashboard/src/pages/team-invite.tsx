// Inviting someone: their email and a role (each role's reach in the API's words); the single-use
// link comes back once, to copy and send; it is valid for 7 days.
import { type FormEvent, useState } from "react";
import type { CreatedTeamInvitation, TeamRole } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { ErrorMessage, formatDate, SecretField } from "../components/ui.js";
import { ROLE_TEXT } from "../me.js";

export const ROLES: TeamRole[] = ["owner", "admin", "developer", "analyst"];

export function InviteForm({ roles, onInvited }: { roles: TeamRole[]; onInvited(): void }) {
  const { client, guard } = useApi();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<TeamRole>("analyst");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<CreatedTeamInvitation | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const invitation = await guard(client.team.invite({ email: email.trim(), role }));
      setCreated(invitation);
      setEmail("");
      onInvited();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="panel">
      <h2>Invite someone</h2>
      <form onSubmit={submit} data-testid="invite-form" className="inline-form">
        <label>
          Email
          <input
            type="email"
            required
            maxLength={254}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            data-testid="invite-email"
          />
        </label>
        <label>
          Role
          <select
            value={role}
            onChange={(e) => setRole(e.target.value as TeamRole)}
            data-testid="invite-role"
          >
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={busy || email.trim() === ""} data-testid="invite-submit">
          {busy ? "Inviting…" : "Invite"}
        </button>
      </form>
      <p className="muted" data-testid="role-help">
        {role}: {ROLE_TEXT[role]}. Only the person whose identity provider vouches for this email can accept.
      </p>
      <ErrorMessage error={error} title="Not invited." />
      {created ? (
        <div className="panel success" data-testid="invitation-link">
          <p>
            Send this link to <strong>{created.email}</strong> ({created.role}). It works once, until{" "}
            {formatDate(created.expiresAt)}, and is not shown again.
          </p>
          <SecretField label="Invitation link" value={created.url} testId="invitation-url" />
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      ) : null}
    </div>
  );
}
