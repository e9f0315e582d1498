// Leads: search and every filter of the list endpoint, kept in the address so a view can be
// bookmarked (leads-query.ts); the page's leads as a sortable table, cards on a phone
// (leads-table.tsx); a selection (use-selection.ts) with bulk actions and a bulk validation's
// progress (leads-bulk.tsx); paging.
import { useEffect, useState } from "react";
import type { Lead } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { download, Empty, ErrorMessage, Loading, Pager, plural } from "../components/ui.js";
import { useSelection } from "../components/use-selection.js";
import { useCan } from "../me.js";
import { Link, navigate, useLocation } from "../router.js";
import { BulkBar, type StartedValidation, ValidationProgress } from "./leads-bulk.js";
import { LeadFilters } from "./leads-filters.js";
import { FILTERS, filtersOf, hrefOf, LIMITS, listQueryOf, sortOf } from "./leads-query.js";
import { LeadsTable } from "./leads-table.js";

const today = () => new Date().toISOString().slice(0, 10);

export function LeadsPage() {
  const { client, guard } = useApi();
  const can = useCan();
  const { query } = useLocation();
  const erased = query.get("erased");
  const applied = filtersOf(query);
  const limit = Number(query.get("limit")) || LIMITS[0]!;
  const offset = Math.max(0, Number(query.get("offset")) || 0);
  const sort = sortOf(query);
  // The list's key leaves the sort out: sorting reorders the rows already loaded.
  const unsorted = new URLSearchParams(query);
  unsorted.delete("sort");
  const key = unsorted.toString();

  const selection = useSelection<Lead>(key);
  /** What the last action that cleared the selection did (its bar is gone). */
  const [notice, setNotice] = useState("");
  const [validation, setValidation] = useState<StartedValidation | null>(null);
  const page = useLoader(
    (_api, signal) => client.leads.list(listQueryOf(applied, limit, offset), { signal }),
    [key],
  );
  const [exportError, setExportError] = useState<unknown>(null);
  const [exporting, setExporting] = useState(false);
  const filtered = FILTERS.some((name) => applied[name] !== "");

  const pageRows = page.data?.leads ?? [];
  // Selected leads the reloaded page no longer holds are fetched again, so a kept row shows its
  // current state (processing, then its verdict) rather than the one it left the filter with.
  const missing = selection.ids.filter((id) => !pageRows.some((l) => l.id === id)).join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new page answer is the trigger
  useEffect(() => {
    if (page.data) selection.refresh(page.data.leads);
    if (!missing || !page.data) return;
    const controller = new AbortController();
    Promise.allSettled(
      missing.split(",").map((id) => client.leads.get(id, { signal: controller.signal })),
    ).then((results) => {
      if (controller.signal.aborted) return;
      selection.refresh(results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : [])));
    });
    return () => controller.abort();
  }, [page.data, missing]);
  const { rows, kept } = selection.withKept(pageRows);

  const exportAll = async () => {
    setExporting(true);
    setExportError(null);
    try {
      // The export follows the active filters and search, as the list does.
      const { limit: _limit, offset: _offset, ...filters } = listQueryOf(applied, limit, 0);
      download(`leads-${today()}.csv`, await guard(client.leads.exportCsv(filters)));
    } catch (e) {
      setExportError(e);
    } finally {
      setExporting(false);
    }
  };
  const refresh = () => {
    selection.clear();
    page.reload();
  };

  return (
    <section aria-labelledby="leads-title">
      <div className="title-row">
        <h1 id="leads-title">Leads</h1>
        <div className="actions">
          <button type="button" onClick={exportAll} disabled={exporting} data-testid="export-leads">
            {exporting ? "Exporting…" : filtered ? "Export these leads as CSV" : "Export all as CSV"}
          </button>
          {can("leads:write") ? (
            <Link to="/import" className="button">
              Import leads
            </Link>
          ) : null}
        </div>
      </div>
      <ErrorMessage error={exportError} />

      <LeadFilters
        applied={applied}
        addressKey={key}
        onApply={(draft) => navigate(hrefOf(draft, limit, 0, sort))}
        onClear={() => navigate(hrefOf(filtersOf(new URLSearchParams()), limit, 0, sort))}
      />

      {selection.size > 0 ? (
        <BulkBar
          ids={selection.ids}
          onValidating={setValidation}
          onDone={(clear, message) => {
            if (clear) {
              selection.clear();
              setNotice(message);
            }
            page.reload();
          }}
        />
      ) : null}
      {validation ? (
        <ValidationProgress
          key={validation.batchId}
          started={validation}
          onProgress={page.reload}
          onDismiss={() => setValidation(null)}
        />
      ) : null}

      <p role="status" className="muted" data-testid="leads-notice">
        {selection.size === 0
          ? notice || (erased ? `Lead ${erased} was erased, with every copy of its data.` : "")
          : ""}
      </p>
      {kept.size > 0 ? (
        <p className="info" data-testid="kept-notice">
          {plural(kept.size, "selected lead")} no longer {kept.size === 1 ? "matches" : "match"} the filters
          and {kept.size === 1 ? "stays" : "stay"} in the list until you refresh.{" "}
          <button type="button" onClick={refresh} data-testid="refresh-list">
            Refresh the list
          </button>
        </p>
      ) : null}
      <ErrorMessage error={page.error} />
      {page.loading && !page.data ? <Loading what="leads" /> : null}
      {page.data && page.data.total === 0 && rows.length === 0 && !page.error ? (
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
            {filtered ? (page.data.total === 1 ? " matches" : " match") : ""}
            {kept.size > 0 ? `; ${plural(kept.size, "selected lead")} kept in view` : ""}
            {sort ? " · sorted within this page (the API lists newest first)" : ""}
          </p>
          <LeadsTable
            rows={rows}
            kept={kept}
            selection={selection}
            sort={sort}
            onSortChange={(next) => navigate(hrefOf(applied, limit, offset, next), { replace: true })}
            busy={page.loading}
            reload={(outcome) => {
              if (outcome) setNotice(outcome);
              page.reload();
            }}
          />
          <div className="table-footer">
            <Pager
              label="Leads"
              offset={offset}
              limit={limit}
              total={page.data.total}
              shown={pageRows.length}
              onChange={(next) => navigate(hrefOf(applied, limit, next, sort))}
            />
            <label>
              Per page{" "}
              <select
                value={limit}
                onChange={(e) => navigate(hrefOf(applied, Number(e.target.value), 0, sort))}
              >
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
