// One audit entry's actor and details, in words: a member by their email when the team list is
// readable, a key by its id, the client's address; details as the server recorded them.
import type { AuditEntry } from "../../../sdk/src/api-types.js";
import { useLoader } from "../api.js";
import { useCan } from "../me.js";

/** Member ids to emails (or subjects), when the caller may read the team; empty otherwise. */
export function useMemberNames(): Map<string, string> {
  const can = useCan();
  const allowed = can("team:read");
  const members = useLoader(
    async (api, signal) =>
      allowed && api.session.kind !== "api_key" ? api.client.team.members({ signal }) : null,
    [allowed],
  );
  return new Map((members.data?.members ?? []).map((m) => [m.id, m.email ?? m.subject]));
}

export function ActorName({ actor, names }: { actor: AuditEntry["actor"]; names: Map<string, string> }) {
  const name = names.get(actor.id);
  return (
    <span className="breakable">
      <span className="badge">{actor.kind}</span> {name ? <strong>{name}</strong> : <code>{actor.id}</code>}
      {name ? <div className="muted">{actor.id}</div> : null}
    </span>
  );
}

export function AuditDetails({ entry }: { entry: AuditEntry }) {
  const pairs = Object.entries(entry.details);
  return (
    <div className="breakable audit-details">
      {pairs.length === 0 ? <span className="muted">—</span> : null}
      {pairs.map(([key, value]) => (
        <div key={key}>
          <span className="muted">{key}:</span> {typeof value === "string" ? value : JSON.stringify(value)}
        </div>
      ))}
      {entry.ip ? <div className="muted">from {entry.ip}</div> : null}
    </div>
  );
}
