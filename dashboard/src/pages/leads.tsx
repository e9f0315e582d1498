// Leads: search (email, name, company) and every filter of the list endpoint, kept in the address so
// a view can be bookmarked; ratings coloured by band, verdict and reason badges; a selection with
// bulk validate, tag, archive and export; paging.
import { type FormEvent, useEffect, useState } from "react";
import type { Lead, LeadListQuery } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { RatingBar, ReasonBadge, RecommendationBadge, Tags, VerdictBadge } from "../components/badges.js";
import {
  ConfirmDialog,
  download,
  Empty,
  ErrorMessage,
  formatDate,
  formatNumber,
  Loading,
  Pager,
  plural,
  ScrollTable,
} from "../components/ui.js";
import { RECOMMENDATION, SOURCE, VALIDATION_STATUS } from "../labels.js";
import { optionalField } from "../lead-fields.js";
import { Link, navigate, useLocation } from "../router.js";

const FILTERS = [
  "search",
  "tag",
  "validationStatus",
  "leadRecommendation",
  "emailValid",
  "minDeliverabilityRating",
  "maxDeliverabilityRating",
  "campaign",
  "source",
] as const;
type FilterName = (typeof FILTERS)[number];
type Filters = Record<FilterName, string>;

const LIMITS = [20, 50, 100];

function filtersOf(query: URLSearchParams): Filters {
  return Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ""])) as Filters;
}

/** The address query as the SDK's typed query; bad numbers are passed on for the API to refuse. */
function listQueryOf(filters: Filters, limit: number, offset: number): LeadListQuery {
  const query: Record<string, unknown> = { limit, offset };
  for (const name of FILTERS) {
    const value = filters[name].trim();
    if (value === "") continue;
    if (name === "emailValid") query[name] = value === "true";
    else if (name === "minDeliverabilityRating" || name === "maxDeliverabilityRating")
      query[name] = /^-?\d+$/.test(value) ? Number(value) : value;
    else query[name] = value;
  }
  return query as LeadListQuery;
}

function hrefOf(filters: Filters, limit: number, offset: number): string {
  const params = new URLSearchParams();
  for (const name of FILTERS) if (filters[name].trim()) params.set(name, filters[name].trim());
  if (limit !== LIMITS[0]) params.set("limit", String(limit));
  if (offset > 0) params.set("offset", String(offset));
  const text = params.toString();
  return `/leads${text ? `?${text}` : ""}`;
}

const today = () => new Date().toISOString().slice(0, 10);

export function LeadsPage() {
  const { client, guard } = useApi();
  const { query } = useLocation();
  const applied = filtersOf(query);
  const limit = Number(query.get("limit")) || LIMITS[0]!;
  const offset = Math.max(0, Number(query.get("offset")) || 0);
  const key = query.toString();

  const [draft, setDraft] = useState<Filters>(applied);
  // Follow the address (back/forward, Clear).
  useEffect(() => setDraft(filtersOf(new URLSearchParams(key))), [key]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  /** What the last action that cleared the selection did (its bar is gone). */
  const [notice, setNotice] = useState("");
  // A new page or filter starts with nothing selected: actions never reach rows out of sight.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the address is the trigger
  useEffect(() => setSelected(new Set()), [key]);

  const page = useLoader(
    (_api, signal) => client.leads.list(listQueryOf(applied, limit, offset), { signal }),
    [key],
  );
  const [exportError, setExportError] = useState<unknown>(null);
  const [exporting, setExporting] = useState(false);
  const filtered = FILTERS.some((name) => applied[name] !== "");

  const apply = (event: FormEvent) => {
    event.preventDefault();
    navigate(hrefOf(draft, limit, 0));
  };
  const exportAll = async () => {
    setExporting(true);
    setExportError(null);
    try {
      download(`leads-${today()}.csv`, await guard(client.leads.exportCsv()));
    } catch (e) {
      setExportError(e);
    } finally {
      setExporting(false);
    }
  };
  const set = (name: FilterName) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [name]: e.target.value }));

  const rows = page.data?.leads ?? [];
  const allSelected = rows.length > 0 && rows.every((l) => selected.has(l.id));
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <section aria-labelledby="leads-title">
      <div className="title-row">
        <h1 id="leads-title">Leads</h1>
        <div className="actions">
          <button type="button" onClick={exportAll} disabled={exporting} data-testid="export-leads">
            {exporting ? "Exporting…" : "Export all as CSV"}
          </button>
          <Link to="/import" className="button">
            Import leads
          </Link>
        </div>
      </div>
      <ErrorMessage error={exportError} />

      <search>
        <form className="search-row" onSubmit={apply} aria-label="Search leads">
          <label className="grow">
            Search by email, name or company
            <input
              type="search"
              name="search"
              value={draft.search}
              onChange={set("search")}
              maxLength={100}
              data-testid="lead-search"
            />
          </label>
          <button type="submit">Search</button>
        </form>
      </search>

      <form className="filters" onSubmit={apply} aria-label="Filter leads" data-testid="lead-filters">
        <label>
          Validation status
          <select value={draft.validationStatus} onChange={set("validationStatus")} name="validationStatus">
            <option value="">Any</option>
            {Object.entries(VALIDATION_STATUS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Recommendation
          <select
            value={draft.leadRecommendation}
            onChange={set("leadRecommendation")}
            name="leadRecommendation"
          >
            <option value="">Any</option>
            {Object.entries(RECOMMENDATION).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Email deliverable
          <select value={draft.emailValid} onChange={set("emailValid")} name="emailValid">
            <option value="">Any</option>
            <option value="true">Yes</option>
            <option value="false">No</option>
          </select>
        </label>
        <label>
          Rating from
          <input
            inputMode="numeric"
            value={draft.minDeliverabilityRating}
            onChange={set("minDeliverabilityRating")}
            name="minDeliverabilityRating"
            size={4}
          />
        </label>
        <label>
          Rating to
          <input
            inputMode="numeric"
            value={draft.maxDeliverabilityRating}
            onChange={set("maxDeliverabilityRating")}
            name="maxDeliverabilityRating"
            size={4}
          />
        </label>
        <label>
          Tag
          <input value={draft.tag} onChange={set("tag")} name="tag" maxLength={100} />
        </label>
        <label>
          Campaign
          <input value={draft.campaign} onChange={set("campaign")} name="campaign" />
        </label>
        <label>
          Source
          <select value={draft.source} onChange={set("source")} name="source">
            <option value="">Any</option>
            {Object.entries(SOURCE).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <div className="actions">
          <button type="submit">Apply filters</button>
          {filtered ? (
            <button
              type="button"
              onClick={() => navigate(hrefOf(filtersOf(new URLSearchParams()), limit, 0))}
            >
              Clear
            </button>
          ) : null}
        </div>
      </form>

      {selected.size > 0 ? (
        <BulkBar
          ids={[...selected]}
          onDone={(clear, message) => {
            if (clear) {
              setSelected(new Set());
              setNotice(message);
            }
            page.reload();
          }}
        />
      ) : null}

      <p role="status" className="muted" data-testid="leads-notice">
        {selected.size === 0 ? notice : ""}
      </p>
      <ErrorMessage error={page.error} />
      {page.loading && !page.data ? <Loading what="leads" /> : null}
      {page.data && page.data.total === 0 && !page.error ? (
        filtered ? (
          <Empty title="No leads match.">Change the search or loosen the filters to see more.</Empty>
        ) : (
          <Empty title="No leads yet.">
            <Link to="/import">Import a CSV file or paste a list of emails</Link> to get rated leads.
          </Empty>
        )
      ) : null}
      {page.data && rows.length > 0 ? (
        <>
          <p className="muted" data-testid="lead-count">
            {plural(page.data.total, "lead")}
            {filtered ? " match" : ""}
          </p>
          <ScrollTable label="Leads table">
            <table data-testid="leads-table" aria-busy={page.loading}>
              <thead>
                <tr>
                  <th scope="col" className="select">
                    <input
                      type="checkbox"
                      aria-label="Select all leads on this page"
                      checked={allSelected}
                      onChange={() => setSelected(allSelected ? new Set() : new Set(rows.map((l) => l.id)))}
                      data-testid="select-all"
                    />
                  </th>
                  <th scope="col">Lead</th>
                  <th scope="col" className="num">
                    Rating
                  </th>
                  <th scope="col">Verdict</th>
                  <th scope="col" className="wide-only">
                    Recommendation
                  </th>
                  <th scope="col" className="wide-only">
                    Tags
                  </th>
                  <th scope="col" className="wide-only">
                    Created
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((lead) => (
                  <LeadRow
                    key={lead.id}
                    lead={lead}
                    selected={selected.has(lead.id)}
                    onToggle={() => toggle(lead.id)}
                  />
                ))}
              </tbody>
            </table>
          </ScrollTable>
          <div className="table-footer">
            <Pager
              label="Leads"
              offset={offset}
              limit={limit}
              total={page.data.total}
              shown={rows.length}
              onChange={(next) => navigate(hrefOf(applied, limit, next))}
            />
            <label>
              Per page{" "}
              <select value={limit} onChange={(e) => navigate(hrefOf(applied, Number(e.target.value), 0))}>
                {LIMITS.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
          </div>
        </>
      ) : null}
    </section>
  );
}

function LeadRow({ lead, selected, onToggle }: { lead: Lead; selected: boolean; onToggle(): void }) {
  const name = [lead.firstName, lead.lastName].filter(Boolean).join(" ");
  const rated = lead.validatedAt !== null;
  const reason = optionalField<string>(lead, "emailReason");
  return (
    <tr data-testid="lead-row" aria-selected={selected}>
      <td className="select">
        <input type="checkbox" checked={selected} onChange={onToggle} aria-label={`Select ${lead.email}`} />
      </td>
      <td>
        <Link to={`/leads/${encodeURIComponent(lead.id)}`} className="wrap">
          {lead.email}
        </Link>
        {name || lead.company ? (
          <div className="muted">{[name, lead.company].filter(Boolean).join(" · ")}</div>
        ) : null}
      </td>
      <td className="num">
        <RatingBar value={lead.leadDeliverabilityRating} rated={rated} />
      </td>
      <td>
        {lead.validationStatus === "processing" ? (
          <VerdictBadge value="processing" kind="status" />
        ) : (
          <VerdictBadge value={rated ? (lead.emailStatus ?? lead.validationStatus) : null} />
        )}
        {reason ? (
          <div>
            <ReasonBadge reason={reason} />
          </div>
        ) : null}
      </td>
      <td className="wide-only">
        <RecommendationBadge value={lead.leadRecommendation} />
      </td>
      <td className="wide-only">
        <Tags tags={lead.tags} />
      </td>
      <td className="wide-only">{formatDate(lead.created)}</td>
    </tr>
  );
}

/** Actions on the selected leads: validate, tag, archive (after a confirmation), export. */
function BulkBar({ ids, onDone }: { ids: string[]; onDone(clearSelection: boolean, message: string): void }) {
  const { client, guard } = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState("");
  const [tag, setTag] = useState("");
  const [confirming, setConfirming] = useState<"archive" | "validate" | null>(null);

  const run = async (what: () => Promise<string>, clear: boolean) => {
    setBusy(true);
    setError(null);
    setMessage("");
    try {
      const done = await what();
      setMessage(done);
      onDone(clear, done);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const count = plural(ids.length, "lead");

  return (
    <section className="bulk-bar" aria-label="Actions on the selected leads" data-testid="bulk-bar">
      <strong data-testid="selected-count">{count} selected</strong>
      <div className="actions">
        <button
          type="button"
          disabled={busy}
          onClick={() => setConfirming("validate")}
          data-testid="bulk-validate"
        >
          Validate
        </button>
        <form
          className="tag-form"
          onSubmit={(e) => {
            e.preventDefault();
            const value = tag.trim();
            if (value)
              run(async () => {
                const r = await guard(client.leads.tag(ids, { add: [value] }));
                setTag("");
                return `Tagged ${plural(r.updated, "lead")} "${value}".`;
              }, false);
          }}
        >
          <label>
            <span className="visually-hidden">Tag</span>
            <input
              value={tag}
              onChange={(e) => setTag(e.target.value)}
              placeholder="Tag"
              maxLength={100}
              size={12}
              data-testid="bulk-tag-input"
            />
          </label>
          <button type="submit" disabled={busy || tag.trim() === ""} data-testid="bulk-tag">
            Add tag
          </button>
          <button
            type="button"
            disabled={busy || tag.trim() === ""}
            onClick={() => {
              const value = tag.trim();
              run(async () => {
                const r = await guard(client.leads.tag(ids, { remove: [value] }));
                setTag("");
                return `Removed "${value}" from ${plural(r.updated, "lead")}.`;
              }, false);
            }}
          >
            Remove tag
          </button>
        </form>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => {
              download(`leads-selection-${today()}.csv`, await guard(client.leads.exportSelectionCsv(ids)));
              return `Exported ${count}.`;
            }, false)
          }
          data-testid="bulk-export"
        >
          Export CSV
        </button>
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={() => setConfirming("archive")}
          data-testid="bulk-archive"
        >
          Archive
        </button>
      </div>
      <p role="status" className="muted" data-testid="bulk-status">
        {busy ? "Working…" : message}
      </p>
      <ErrorMessage error={error} />
      <ConfirmDialog
        open={confirming === "archive"}
        title={`Archive ${count}?`}
        confirmLabel="Archive"
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          setConfirming(null);
          run(async () => {
            const r = await guard(client.leads.archiveMany(ids));
            return `Archived ${plural(r.archived, "lead")}.`;
          }, true);
        }}
      >
        <p>Archived leads leave the list and the exports. Their emails can be added again later.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === "validate"}
        title={`Validate ${count}?`}
        confirmLabel="Validate"
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          setConfirming(null);
          run(async () => {
            const r = await guard(client.leads.validate(ids));
            return `Validating ${plural(r.totalLeads, "lead")}: the ratings update as the batch runs.`;
          }, false);
        }}
      >
        <p>
          Each lead is checked again (email and website) and charged as a lead validation: 2 credits per lead
          at the standard prices, {formatNumber(ids.length * 2)} credits for this selection.
        </p>
      </ConfirmDialog>
    </section>
  );
}
