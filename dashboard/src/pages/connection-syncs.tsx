// One connection's syncs: start one (a sheet and its tab, or HubSpot contacts or one list) and the
// history with counts and errors, refreshed while a sync runs.
import { type FormEvent, useEffect, useState } from "react";
import type { Connection, Sync, SyncCreateInput } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { DataTable } from "../components/data-table.js";
import { Empty, ErrorMessage, formatDate, formatNumber, Loading } from "../components/ui.js";

/** A spreadsheet id from a pasted Sheets URL (…/spreadsheets/d/<id>/edit…), or the text as given. */
const spreadsheetIdOf = (text: string): string =>
  /\/spreadsheets\/d\/([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? text.trim();

const REFRESH_MS = 2000;

const WATCH_EVERY = [
  { minutes: 15, label: "every 15 minutes" },
  { minutes: 60, label: "every hour" },
  { minutes: 1440, label: "every day" },
];

export function ConnectionSyncs({ connection, onChanged }: { connection: Connection; onChanged(): void }) {
  const { client } = useApi();
  const syncs = useLoader(
    (_api, signal) => client.connections.syncs(connection.connectionId, { signal }),
    [connection.connectionId],
  );
  // Watches come with the connection itself (GET /v1/connections/{id}), not with the list.
  const detail = useLoader(
    (_api, signal) => client.connections.get(connection.connectionId, { signal }),
    [connection.connectionId],
  );
  const changed = () => {
    detail.reload();
    onChanged();
  };
  const running = syncs.data?.syncs.some((s) => s.status === "running") ?? false;
  const { reload } = syncs;
  // Each answer re-arms the timer (syncs.data is the trigger, not an input), until none is running.
  // biome-ignore lint/correctness/useExhaustiveDependencies: syncs.data changes on every answer
  useEffect(() => {
    if (!running) return;
    const timer = window.setTimeout(reload, REFRESH_MS);
    return () => window.clearTimeout(timer);
  }, [running, reload, syncs.data]);

  return (
    <section className="panel" aria-labelledby="syncs-title" data-testid="connection-syncs">
      <h2 id="syncs-title">Syncs of “{connection.name}”</h2>
      {connection.status === "needs_reauth" ? (
        <p className="alert" role="alert">
          This connection needs to be connected again
          {connection.statusReason ? `: ${connection.statusReason}` : "."} Delete it and connect anew.
        </p>
      ) : (
        <SyncForm
          connection={connection}
          onStarted={() => {
            reload();
            changed();
          }}
        />
      )}
      {detail.data ? <Watches connection={detail.data} onChanged={changed} /> : null}
      <h3>History</h3>
      {syncs.error ? <ErrorMessage error={syncs.error} /> : null}
      {syncs.loading && !syncs.data ? <Loading what="syncs" /> : null}
      {syncs.data && syncs.data.syncs.length === 0 ? <Empty title="No syncs yet." /> : null}
      {syncs.data && syncs.data.syncs.length > 0 ? <SyncHistory syncs={syncs.data.syncs} /> : null}
    </section>
  );
}

function SyncForm({ connection, onStarted }: { connection: Connection; onStarted(): void }) {
  const { client, guard } = useApi();
  const sheets = connection.kind === "google_sheets";
  const [sheetUrl, setSheetUrl] = useState("");
  const [tab, setTab] = useState("Sheet1");
  const [listId, setListId] = useState("");
  const [validate, setValidate] = useState(true);
  const [writeBack, setWriteBack] = useState(true);
  const [watchEvery, setWatchEvery] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  const spreadsheetId = spreadsheetIdOf(sheetUrl);
  const idProblem =
    sheets && sheetUrl.trim() && !/^[A-Za-z0-9_-]+$/.test(spreadsheetId)
      ? "Paste the sheet's address (https://docs.google.com/spreadsheets/d/…) or its id."
      : null;
  const ready = sheets ? spreadsheetId !== "" && !idProblem && tab.trim() !== "" : true;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!ready) return;
    setBusy(true);
    setError(null);
    setStatus("");
    const input: SyncCreateInput = {
      validate,
      writeBack: validate && writeBack,
      ...(watchEvery > 0 ? { watch: { everyMinutes: watchEvery } } : {}),
      ...(sheets ? { spreadsheetId, sheet: tab.trim() } : listId.trim() ? { listId: listId.trim() } : {}),
    };
    try {
      const sync = await guard(client.connections.startSync(connection.connectionId, input));
      setStatus(`Sync ${sync.syncId} started.`);
      onStarted();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="inline-form" data-testid="sync-form" noValidate>
      {sheets ? (
        <>
          {connection.clientEmail ? (
            <p className="muted">
              The sheet must be shared with <code>{connection.clientEmail}</code>.
            </p>
          ) : null}
          <label>
            Sheet address or id
            <input
              value={sheetUrl}
              onChange={(e) => setSheetUrl(e.target.value)}
              placeholder="https://docs.google.com/spreadsheets/d/…"
              data-testid="sync-sheet"
            />
          </label>
          {idProblem ? <p className="field-problem">{idProblem}</p> : null}
          <label>
            Tab
            <input value={tab} onChange={(e) => setTab(e.target.value)} data-testid="sync-tab" />
          </label>
        </>
      ) : (
        <label>
          HubSpot list id (optional; empty: every contact)
          <input value={listId} onChange={(e) => setListId(e.target.value)} data-testid="sync-list" />
        </label>
      )}
      <label className="check">
        <input type="checkbox" checked={validate} onChange={(e) => setValidate(e.target.checked)} />
        Validate the leads (charged as lead validations)
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={validate && writeBack}
          disabled={!validate}
          onChange={(e) => setWriteBack(e.target.checked)}
        />
        Write the verdicts back{" "}
        {sheets ? "to the sheet (our own columns only)" : "to the contacts (our own properties only)"}
      </label>
      <label>
        Then
        <select
          value={watchEvery}
          onChange={(e) => setWatchEvery(Number(e.target.value))}
          data-testid="sync-watch"
        >
          <option value={0}>run once</option>
          {WATCH_EVERY.map((w) => (
            <option key={w.minutes} value={w.minutes}>
              watch for new {sheets ? "rows" : "contacts"} {w.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={busy || !ready}>
        {busy ? "Starting…" : "Run sync now"}
      </button>
      <p role="status" data-testid="sync-status">
        {status}
      </p>
      <ErrorMessage error={error} />
    </form>
  );
}

function Watches({ connection, onChanged }: { connection: Connection; onChanged(): void }) {
  const { client, guard } = useApi();
  const [error, setError] = useState<unknown>(null);
  const watches = connection.watches ?? [];
  if (watches.length === 0) return null;
  const stop = async (watchId: string) => {
    setError(null);
    try {
      await guard(client.connections.stopWatch(connection.connectionId, watchId));
      onChanged();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <h3>Watches</h3>
      <ul className="origin-list" data-testid="watches">
        {watches.map((w) => (
          <li key={w.watchId} data-testid="watch">
            <span>
              {w.spreadsheetId
                ? `${w.spreadsheetId} / ${w.sheet}`
                : w.listId
                  ? `list ${w.listId}`
                  : "all contacts"}
              , every {formatNumber(w.everyMinutes)} minutes
            </span>
            <button type="button" className="link-button" onClick={() => stop(w.watchId)}>
              Stop watching
            </button>
          </li>
        ))}
      </ul>
      <ErrorMessage error={error} />
    </>
  );
}

const STATUS_TONE: Record<Sync["status"], string> = {
  running: "tone-info",
  completed: "tone-good",
  failed: "tone-bad",
};

function SyncHistory({ syncs }: { syncs: Sync[] }) {
  return (
    <DataTable
      label="Sync history"
      rows={syncs}
      rowKey={(s) => s.syncId}
      testId="sync-history"
      rowTestId="sync-row"
      columns={[
        {
          key: "started",
          header: "Started",
          primary: true,
          sortValue: (s) => s.createdAt,
          cell: (s) => formatDate(s.createdAt),
        },
        {
          key: "status",
          header: "Status",
          sortValue: (s) => s.status,
          cell: (s) => (
            <>
              <span className={`badge ${STATUS_TONE[s.status]}`}>{s.status}</span>
              {s.status === "running" ? <span className="muted"> {s.phase}</span> : null}
              {s.failureReason ? <div className="field-problem">{s.failureReason}</div> : null}
            </>
          ),
        },
        {
          key: "counts",
          header: "Counts",
          cell: (s) => (
            <span data-testid="sync-counts">
              {formatNumber(s.counts.read)} read, {formatNumber(s.counts.created)} new,{" "}
              {formatNumber(s.counts.matched)} matched, {formatNumber(s.counts.validated)} validated,{" "}
              {formatNumber(s.counts.written)} written back, {formatNumber(s.counts.skipped)} skipped,{" "}
              {formatNumber(s.counts.failed)} failed
            </span>
          ),
        },
        {
          key: "errors",
          header: "Errors",
          sortValue: (s) => s.errors.length,
          cell: (s) =>
            s.errors.length === 0 ? (
              "none"
            ) : (
              <ul className="sync-errors" data-testid="sync-errors">
                {s.errors.slice(0, 10).map((e) => (
                  <li key={`${e.item}:${e.message}`}>
                    <code>{e.item}</code> {e.message}
                  </li>
                ))}
                {s.errors.length > 10 ? <li>and {formatNumber(s.errors.length - 10)} more</li> : null}
              </ul>
            ),
        },
      ]}
    />
  );
}
