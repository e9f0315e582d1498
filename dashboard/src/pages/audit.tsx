// The audit log: who did what, newest first, filtered by actor, action and date (the API's
// filters), paged by its cursor; the chain's verification on demand; the filtered entries as CSV.
import { type FormEvent, useEffect, useState } from "react";
import type { AuditEntry, AuditFilter } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { DataTable } from "../components/data-table.js";
import { download, Empty, ErrorMessage, formatDate, Loading } from "../components/ui.js";
import { useCan } from "../me.js";
import { ActorName, AuditDetails, useMemberNames } from "./audit-entry.js";
import { ChainCheck } from "./audit-verify.js";

/** Actions the server records (docs/data-protection.md); the field takes any other too. */
const ACTIONS = [
  "key.created",
  "key.revoked",
  "member.invited",
  "member.role_changed",
  "member.removed",
  "member.invitation_revoked",
  "lead.erased",
  "retention.changed",
  "retention.purged",
  "account.exported",
  "session.signed_in",
];

interface Form {
  actor: string;
  action: string;
  from: string;
  to: string;
}
const EMPTY: Form = { actor: "", action: "", from: "", to: "" };

/** The form as the API's filter: dates are whole UTC days, `to` included. */
function filterOf(form: Form): AuditFilter {
  const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();
  return {
    ...(form.actor.trim() ? { actor: form.actor.trim() } : {}),
    ...(form.action.trim() ? { action: form.action.trim() } : {}),
    ...(form.from ? { from: `${form.from}T00:00:00.000Z` } : {}),
    ...(form.to ? { to: nextDay(form.to) } : {}),
  };
}

export function AuditPage() {
  const { client, guard } = useApi();
  const can = useCan();
  const names = useMemberNames();
  const [form, setForm] = useState<Form>(EMPTY);
  const [filter, setFilter] = useState<AuditFilter>({});
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const [exporting, setExporting] = useState(false);

  const load = async (query: AuditFilter, after: string | null) => {
    setLoading(true);
    setError(null);
    try {
      const page = await guard(
        client.audit.list({ ...query, limit: 50, ...(after ? { cursor: after } : {}) }),
      );
      setEntries((shown) => (after && shown ? [...shown, ...page.entries] : page.entries));
      setCursor(page.next_cursor);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloads when the applied filter changes
  useEffect(() => {
    void load(filter, null);
  }, [filter]);

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilter(filterOf(form));
  };
  const exportCsv = async () => {
    setExporting(true);
    setError(null);
    try {
      download("audit-log.csv", await guard(client.audit.exportCsv(filter)));
    } catch (e) {
      setError(e);
    } finally {
      setExporting(false);
    }
  };
  const set = (field: keyof Form) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [field]: e.target.value }));

  if (!can("audit:read"))
    return (
      <section>
        <h1>Audit log</h1>
        <p className="info" role="note">
          Your role cannot read the audit log: owners and admins can.
        </p>
      </section>
    );
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <p className="muted">
        Every sensitive action on this account: keys, members, webhooks, credits, exports, erasures, retention
        and sign-ins. Each entry is chained to the one before it by its hash, so an edited or removed entry is
        found.
      </p>
      <ChainCheck />
      <form className="filters" onSubmit={apply} data-testid="audit-filters">
        <label>
          Actor
          <input
            value={form.actor}
            onChange={set("actor")}
            placeholder="mem_… or key_…"
            data-testid="filter-actor"
          />
        </label>
        <label>
          Action
          <input
            value={form.action}
            onChange={set("action")}
            list="audit-actions"
            data-testid="filter-action"
          />
          <datalist id="audit-actions">
            {ACTIONS.map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <label>
          From
          <input type="date" value={form.from} onChange={set("from")} data-testid="filter-from" />
        </label>
        <label>
          To
          <input type="date" value={form.to} onChange={set("to")} data-testid="filter-to" />
        </label>
        <div className="actions">
          <button type="submit" data-testid="apply-filters">
            Apply
          </button>
          <button
            type="button"
            onClick={() => {
              setForm(EMPTY);
              setFilter({});
            }}
          >
            Clear
          </button>
          <button type="button" onClick={exportCsv} disabled={exporting} data-testid="export-audit">
            {exporting ? "Exporting…" : "Export CSV"}
          </button>
        </div>
      </form>
      <ErrorMessage error={error} />
      {loading && !entries ? <Loading what="the audit log" /> : null}
      {entries && entries.length === 0 ? <Empty title="No entries match these filters." /> : null}
      {entries && entries.length > 0 ? (
        <DataTable
          label="Audit entries"
          rows={entries}
          rowKey={(e) => e.id}
          testId="audit-table"
          rowTestId="audit-row"
          columns={[
            {
              key: "action",
              header: "Action",
              primary: true,
              cell: (e) => (
                <>
                  <code>{e.action}</code> <span className="muted">#{e.seq}</span>
                </>
              ),
            },
            { key: "when", header: "When", cell: (e) => formatDate(e.created_at) },
            { key: "actor", header: "Actor", cell: (e) => <ActorName actor={e.actor} names={names} /> },
            {
              key: "target",
              header: "Target",
              cell: (e) => (
                <span className="breakable">
                  {e.target.kind} <code>{e.target.id}</code>
                </span>
              ),
            },
            { key: "details", header: "Details", cell: (e) => <AuditDetails entry={e} /> },
          ]}
        />
      ) : null}
      {cursor ? (
        <button
          type="button"
          onClick={() => load(filter, cursor)}
          disabled={loading}
          data-testid="audit-more"
        >
          {loading ? "Loading…" : "Older entries"}
        </button>
      ) : null}
    </section>
  );
}
