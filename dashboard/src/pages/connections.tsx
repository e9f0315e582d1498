// Connections: connect Google Sheets or HubSpot, list them with their status, pick one to sync and
// see its sync history, delete one (with its stored credentials) after a confirmation.
import { useState } from "react";
import type { Connection } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { DataTable } from "../components/data-table.js";
import { ConfirmDialog, Empty, ErrorMessage, formatDate, Loading } from "../components/ui.js";
import { ConnectForm, ShareHint } from "./connection-form.js";
import { ConnectionSyncs } from "./connection-syncs.js";

const KIND_LABELS: Record<Connection["kind"], string> = {
  google_sheets: "Google Sheets",
  hubspot: "HubSpot",
};

const STATUS: Record<Connection["status"], { tone: string; label: string }> = {
  active: { tone: "tone-good", label: "active" },
  needs_reauth: { tone: "tone-bad", label: "needs reconnecting" },
  disabled: { tone: "tone-none", label: "disabled" },
};

export function ConnectionsPage() {
  const { client, guard } = useApi();
  const connections = useLoader((_api, signal) => client.connections.list({ signal }), []);
  const [justConnected, setJustConnected] = useState<Connection | null>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Connection | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [status, setStatus] = useState("");
  const list = connections.data?.connections ?? [];
  const selected = list.find((c) => c.connectionId === selectedId) ?? null;

  const remove = async () => {
    const connection = deleting;
    setDeleting(null);
    if (!connection) return;
    setActionError(null);
    try {
      await guard(client.connections.delete(connection.connectionId));
      setStatus(`“${connection.name}” deleted with its stored credentials.`);
      if (selectedId === connection.connectionId) setSelectedId(null);
      connections.reload();
    } catch (e) {
      setActionError(e);
    }
  };

  return (
    <section aria-labelledby="connections-title">
      <h1 id="connections-title">Connections</h1>
      <p className="muted">
        Bring leads in from a Google Sheet or HubSpot, validate them and write the verdicts back next to them.
      </p>
      <ConnectForm
        onConnected={(connection) => {
          setJustConnected(connection);
          setSelectedId(connection.connectionId);
          setStatus(`“${connection.name}” connected.`);
          connections.reload();
        }}
      />
      {justConnected?.clientEmail ? <ShareHint email={justConnected.clientEmail} /> : null}
      <p role="status" data-testid="connections-status">
        {status}
      </p>
      <ErrorMessage error={actionError} />
      <h2>Your connections</h2>
      {connections.error ? <ErrorMessage error={connections.error} /> : null}
      {connections.loading && !connections.data ? <Loading what="connections" /> : null}
      {connections.data && list.length === 0 ? (
        <Empty title="No connections yet.">Connect a Google Sheet or a HubSpot account above.</Empty>
      ) : null}
      {list.length > 0 ? (
        <DataTable
          label="Your connections"
          rows={list}
          rowKey={(c) => c.connectionId}
          testId="connections-table"
          rowTestId="connection-row"
          columns={[
            {
              key: "name",
              header: "Name",
              primary: true,
              sortValue: (c) => c.name.toLowerCase(),
              cell: (c) => (
                <>
                  <strong>{c.name}</strong>
                  {c.clientEmail ? (
                    <div className="muted">
                      shared with <code>{c.clientEmail}</code>
                    </div>
                  ) : null}
                </>
              ),
            },
            { key: "kind", header: "Service", sortValue: (c) => c.kind, cell: (c) => KIND_LABELS[c.kind] },
            {
              key: "status",
              header: "Status",
              sortValue: (c) => c.status,
              cell: (c) => (
                <>
                  <span className={`badge ${STATUS[c.status].tone}`} data-testid="connection-status">
                    {STATUS[c.status].label}
                  </span>
                  {c.statusReason ? <div className="muted">{c.statusReason}</div> : null}
                </>
              ),
            },
            {
              key: "lastSync",
              header: "Last sync",
              sortValue: (c) => c.lastSyncAt ?? null,
              cell: (c) => (c.lastSyncAt ? formatDate(c.lastSyncAt) : "never"),
            },
            {
              key: "created",
              header: "Connected",
              sortValue: (c) => c.createdAt,
              cell: (c) => formatDate(c.createdAt),
              wideOnly: true,
            },
          ]}
          actions={(c) => (
            <>
              <button
                type="button"
                onClick={() => setSelectedId(c.connectionId)}
                aria-label={`Syncs of ${c.name}`}
                aria-pressed={selectedId === c.connectionId}
              >
                Syncs
              </button>
              <button
                type="button"
                className="danger"
                onClick={() => setDeleting(c)}
                aria-label={`Delete ${c.name}`}
              >
                Delete
              </button>
            </>
          )}
        />
      ) : null}
      {selected ? (
        <ConnectionSyncs key={selected.connectionId} connection={selected} onChanged={connections.reload} />
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this connection?"
        confirmLabel="Delete connection"
        onConfirm={remove}
        onCancel={() => setDeleting(null)}
      >
        <p>
          “{deleting?.name}” and its stored credentials are deleted. Leads already synced stay; the sheet or
          contacts are not changed.
        </p>
      </ConfirmDialog>
    </section>
  );
}
