// Leads: every filter the list endpoint takes (kept in the address, so a filtered view can be
// bookmarked), ratings with their band and recommendation, paging, and a CSV export.
import { type FormEvent, useEffect, useState } from "react";
import type { LeadListQuery } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { download, Empty, ErrorMessage, formatDate, formatNumber, Loading, Pager } from "../components/ui.js";
import { labelOf, RECOMMENDATION, SOURCE, VALIDATION_STATUS } from "../labels.js";
import { Link, navigate, useLocation } from "../router.js";

const FILTERS = [
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

  const page = useLoader(
    (_api, signal) => client.leads.list(listQueryOf(applied, limit, offset), { signal }),
    [key],
  );
  const stats = useLoader((_api, signal) => client.leads.stats({ signal }), []);
  const [exportError, setExportError] = useState<unknown>(null);
  const [exporting, setExporting] = useState(false);
  const filtered = FILTERS.some((name) => applied[name] !== "");

  const apply = (event: FormEvent) => {
    event.preventDefault();
    navigate(hrefOf(draft, limit, 0));
  };
  const exportCsv = async () => {
    setExporting(true);
    setExportError(null);
    try {
      download(`leads-${new Date().toISOString().slice(0, 10)}.csv`, await guard(client.leads.exportCsv()));
    } catch (e) {
      setExportError(e);
    } finally {
      setExporting(false);
    }
  };
  const set = (name: FilterName) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [name]: e.target.value }));

  return (
    <section aria-labelledby="leads-title">
      <div className="title-row">
        <h1 id="leads-title">Leads</h1>
        <div>
          <button type="button" onClick={exportCsv} disabled={exporting} data-testid="export-leads">
            {exporting ? "Exporting…" : "Export all as CSV"}
          </button>{" "}
          <Link to="/import" className="button">
            Import leads
          </Link>
        </div>
      </div>
      <ErrorMessage error={exportError} />
      {stats.data ? (
        <dl className="cards" data-testid="lead-stats">
          <div>
            <dt>Leads</dt>
            <dd>{formatNumber(stats.data.total)}</dd>
          </div>
          <div>
            <dt>Validated</dt>
            <dd>{formatNumber(stats.data.validated)}</dd>
          </div>
          <div>
            <dt>Average rating</dt>
            <dd>{stats.data.averageRating === null ? "—" : Math.round(stats.data.averageRating)}</dd>
          </div>
        </dl>
      ) : null}

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

      <ErrorMessage error={page.error} />
      {page.loading && !page.data ? <Loading what="leads" /> : null}
      {page.data && page.data.total === 0 && !page.error ? (
        filtered ? (
          <Empty title="No leads match these filters.">Loosen or clear the filters to see more.</Empty>
        ) : (
          <Empty title="No leads yet.">
            <Link to="/import">Import a CSV file or paste a list of emails</Link> to get rated leads.
          </Empty>
        )
      ) : null}
      {page.data && page.data.leads.length > 0 ? (
        <>
          <table data-testid="leads-table" aria-busy={page.loading}>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Company</th>
                <th scope="col" className="num">
                  Rating
                </th>
                <th scope="col">Band</th>
                <th scope="col">Recommendation</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {page.data.leads.map((lead) => (
                <tr key={lead.id} data-testid="lead-row">
                  <td>
                    <Link to={`/leads/${encodeURIComponent(lead.id)}`}>{lead.email}</Link>
                    {lead.website ? <div className="muted">{lead.website}</div> : null}
                  </td>
                  <td>{lead.company ?? "—"}</td>
                  <td className="num">
                    <Rating value={lead.leadDeliverabilityRating} />
                  </td>
                  <td>{lead.leadQuality}</td>
                  <td>
                    <span className={`tag rec-${lead.leadRecommendation}`}>
                      {labelOf(RECOMMENDATION, lead.leadRecommendation)}
                    </span>
                  </td>
                  <td>{labelOf(VALIDATION_STATUS, lead.validationStatus)}</td>
                  <td>{formatDate(lead.created)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="table-footer">
            <Pager
              label="Leads"
              offset={offset}
              limit={limit}
              total={page.data.total}
              shown={page.data.leads.length}
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

export function Rating({ value }: { value: number }) {
  return (
    <span className="rating" title={`Rating ${value} of 100`}>
      <meter min={0} max={100} value={value} aria-hidden="true" /> <strong>{value}</strong>
    </span>
  );
}
