// The team of the account on screen: members with their roles (changed in place), invitations
// still waiting (withdrawn after a confirmation), an invitation form with a role picker, and
// removal after a confirmation. What the caller's role cannot do is not offered; the server's
// rules (only owners touch owners, the last owner stays) come back as its own messages.
import { useState } from "react";
import type { TeamInvitations, TeamMember, TeamRole } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { DataTable } from "../components/data-table.js";
import { ConfirmDialog, Empty, ErrorMessage, formatDate, Loading } from "../components/ui.js";
import { ROLE_TEXT, useCan, useMe } from "../me.js";
import { InviteForm, ROLES } from "./team-invite.js";

type Invitation = TeamInvitations["invitations"][number];

export function TeamPage() {
  const { session } = useApi();
  return (
    <section aria-labelledby="team-title">
      <h1 id="team-title">Team</h1>
      {session.kind === "api_key" ? (
        <p className="info" role="note">
          The team is managed by people: sign in with your identity provider or a sign-in link.
        </p>
      ) : (
        <Team />
      )}
    </section>
  );
}

function Team() {
  const { client, guard } = useApi();
  const me = useMe();
  const can = useCan();
  const canWrite = can("team:write");
  const members = useLoader((_api, signal) => client.team.members({ signal }), []);
  const invitations = useLoader((_api, signal) => client.team.invitations({ signal }), []);
  const [removing, setRemoving] = useState<TeamMember | null>(null);
  const [withdrawing, setWithdrawing] = useState<Invitation | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);

  const act = async (work: () => Promise<string>, after: () => void) => {
    setBusy(true);
    setError(null);
    setStatus("");
    try {
      setStatus(await work());
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
      after();
    }
  };
  const changeRole = (member: TeamMember, role: TeamRole) =>
    act(async () => {
      await guard(client.team.changeRole(member.id, role));
      return `${member.email ?? member.subject} is now ${role}.`;
    }, members.reload);
  const remove = () => {
    const member = removing;
    setRemoving(null);
    if (member)
      void act(async () => {
        await guard(client.team.remove(member.id));
        return `${member.email ?? member.subject} was removed: their sessions no longer open this account.`;
      }, members.reload);
  };
  const withdraw = () => {
    const invitation = withdrawing;
    setWithdrawing(null);
    if (invitation)
      void act(async () => {
        await guard(client.team.revokeInvitation(invitation.id));
        return `The invitation for ${invitation.email} was withdrawn: its link no longer works.`;
      }, invitations.reload);
  };
  const you = members.data?.you;
  // Only an owner changes an owner or makes one (the server refuses it otherwise).
  const roleChoices = me.role === "owner" ? ROLES : ROLES.filter((r) => r !== "owner");

  return (
    <>
      <p className="muted">
        You are <strong data-testid="team-my-role">{me.role}</strong> here: {ROLE_TEXT[me.role ?? ""] ?? ""}.
      </p>
      {canWrite ? <InviteForm roles={roleChoices} onInvited={invitations.reload} /> : null}
      <p role="status" data-testid="team-status">
        {status}
      </p>
      <ErrorMessage error={error} />
      <h2>Members</h2>
      {members.error ? <ErrorMessage error={members.error} /> : null}
      {members.loading && !members.data ? <Loading what="members" /> : null}
      {members.data ? (
        <DataTable
          label="Members"
          rows={members.data.members}
          rowKey={(m) => m.id}
          testId="members-table"
          rowTestId="member-row"
          busy={busy}
          columns={[
            {
              key: "who",
              header: "Member",
              primary: true,
              sortValue: (m) => (m.email ?? m.subject).toLowerCase(),
              cell: (m) => (
                <>
                  <strong>{m.email ?? m.subject}</strong>
                  {m.id === you ? <span className="badge tone-info">you</span> : null}
                  {m.email ? <div className="muted">{m.subject}</div> : null}
                </>
              ),
            },
            {
              key: "role",
              header: "Role",
              sortValue: (m) => ROLES.indexOf(m.role),
              cell: (m) =>
                canWrite && (me.role === "owner" || m.role !== "owner") ? (
                  <select
                    aria-label={`Role of ${m.email ?? m.subject}`}
                    value={m.role}
                    disabled={busy}
                    data-testid="member-role"
                    onChange={(e) => changeRole(m, e.target.value as TeamRole)}
                  >
                    {(m.role === "owner" ? ROLES : roleChoices).map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                ) : (
                  <span className="badge">{m.role}</span>
                ),
            },
            {
              key: "joined",
              header: "Joined",
              sortValue: (m) => m.joinedAt,
              cell: (m) => formatDate(m.joinedAt),
            },
          ]}
          actions={
            canWrite
              ? (m) =>
                  me.role === "owner" || m.role !== "owner" ? (
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      onClick={() => setRemoving(m)}
                      aria-label={`Remove ${m.email ?? m.subject}`}
                    >
                      {m.id === you ? "Leave" : "Remove"}
                    </button>
                  ) : null
              : undefined
          }
        />
      ) : null}
      <h2>Pending invitations</h2>
      {invitations.error ? <ErrorMessage error={invitations.error} /> : null}
      {invitations.data && invitations.data.invitations.length === 0 ? (
        <Empty title="No invitations waiting.">
          {canWrite ? "Invite someone above: they get a link valid for 7 days." : null}
        </Empty>
      ) : null}
      {invitations.data && invitations.data.invitations.length > 0 ? (
        <DataTable
          label="Pending invitations"
          rows={invitations.data.invitations}
          rowKey={(i) => i.id}
          testId="invitations-table"
          rowTestId="invitation-row"
          columns={[
            { key: "email", header: "Email", primary: true, cell: (i) => <strong>{i.email}</strong> },
            { key: "role", header: "Role", cell: (i) => <span className="badge">{i.role}</span> },
            { key: "sent", header: "Sent", cell: (i) => formatDate(i.createdAt) },
            { key: "expires", header: "Expires", cell: (i) => formatDate(i.expiresAt) },
          ]}
          actions={
            canWrite
              ? (i) =>
                  me.role === "owner" || i.role !== "owner" ? (
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      onClick={() => setWithdrawing(i)}
                      aria-label={`Withdraw the invitation for ${i.email}`}
                    >
                      Withdraw
                    </button>
                  ) : null
              : undefined
          }
        />
      ) : null}
      <ConfirmDialog
        open={removing !== null}
        title={removing?.id === you ? "Leave this account?" : "Remove this member?"}
        confirmLabel={removing?.id === you ? "Leave" : "Remove member"}
        onConfirm={remove}
        onCancel={() => setRemoving(null)}
      >
        <p>
          {removing?.email ?? removing?.subject} loses access to this account on their next request, dashboard
          sessions included. Keys they created keep working. An account always keeps at least one owner.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={withdrawing !== null}
        title="Withdraw this invitation?"
        confirmLabel="Withdraw invitation"
        onConfirm={withdraw}
        onCancel={() => setWithdrawing(null)}
      >
        <p>The link sent to {withdrawing?.email} stops working. You can invite them again later.</p>
      </ConfirmDialog>
    </>
  );
}
