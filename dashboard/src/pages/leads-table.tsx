// The leads of one page as a DataTable: lead (email, name, company), website, rating, verdict with
// its reason, recommendation, tags and created date; every column but tags sorts (within the page).
// Selected leads that left the filter stay as rows, marked, until the user refreshes.
import type { Lead } from "../../../sdk/src/api-types.js";
import { RatingBar, ReasonBadge, RecommendationBadge, Tags, VerdictBadge } from "../components/badges.js";
import { Breakable } from "../components/breakable.js";
import { type Column, DataTable, type Sort } from "../components/data-table.js";
import { DidYouMeanFix } from "../components/did-you-mean.js";
import { StaleBadge, useStaleAfterDays } from "../components/stale-badge.js";
import { formatDate } from "../components/ui.js";
import type { SelectionState } from "../components/use-selection.js";
import { labelOf, RECOMMENDATION } from "../labels.js";
import { optionalField } from "../lead-fields.js";
import { Link } from "../router.js";

const rated = (lead: Lead) => lead.validatedAt !== null;

/** The verdict a row shows: its status while processing, else the email verdict once rated. */
const verdictOf = (lead: Lead): string | null =>
  lead.validationStatus === "processing"
    ? "processing"
    : rated(lead)
      ? (lead.emailStatus ?? lead.validationStatus)
      : null;

const VERDICT_ORDER: Record<string, number> = { valid: 0, risky: 1, unknown: 2, invalid: 3, processing: 4 };

function columns(
  kept: Set<string>,
  reload: (outcome?: string) => void,
  staleAfterDays: number | null,
): Column<Lead>[] {
  return [
    {
      key: "email",
      header: "Lead",
      primary: true,
      sortValue: (l) => l.email.toLowerCase(),
      cell: (lead) => {
        const name = [lead.firstName, lead.lastName].filter(Boolean).join(" ");
        return (
          <>
            <Link to={`/leads/${encodeURIComponent(lead.id)}`}>
              <Breakable text={lead.email} />
            </Link>
            {name || lead.company ? (
              <div className="muted">{[name, lead.company].filter(Boolean).join(" · ")}</div>
            ) : null}
            {kept.has(lead.id) ? (
              <div className="kept-note" data-testid="kept-note">
                Selected; no longer matches the filters
              </div>
            ) : null}
            <DidYouMeanFix lead={lead} onChanged={reload} compact />
          </>
        );
      },
    },
    {
      key: "website",
      header: "Website",
      sortValue: (l) => l.website?.toLowerCase() ?? null,
      cell: (lead) =>
        lead.website ? (
          <Breakable text={lead.website.replace(/^https?:\/\//, "")} />
        ) : (
          <span className="muted">—</span>
        ),
    },
    {
      key: "rating",
      header: "Rating",
      className: "num",
      sortValue: (l) => (rated(l) ? l.leadDeliverabilityRating : null),
      cell: (lead) => <RatingBar value={lead.leadDeliverabilityRating} rated={rated(lead)} />,
    },
    {
      key: "verdict",
      header: "Verdict",
      sortValue: (l) => {
        const v = verdictOf(l);
        return v === null ? null : (VERDICT_ORDER[v] ?? 5);
      },
      cell: (lead) => {
        const reason = optionalField<string>(lead, "emailReason");
        const verdict = verdictOf(lead);
        return (
          <>
            {verdict === "processing" ? (
              <VerdictBadge value="processing" kind="status" />
            ) : (
              <>
                <VerdictBadge value={verdict} />{" "}
                <StaleBadge validatedAt={lead.validatedAt} staleAfterDays={staleAfterDays} />
              </>
            )}
            {reason && verdict !== "processing" ? (
              <div>
                <ReasonBadge reason={reason} />
              </div>
            ) : null}
          </>
        );
      },
    },
    {
      key: "recommendation",
      header: "Recommendation",
      wideOnly: true,
      sortValue: (l) => (l.leadRecommendation ? labelOf(RECOMMENDATION, l.leadRecommendation) : null),
      cell: (lead) => <RecommendationBadge value={lead.leadRecommendation} />,
    },
    {
      key: "tags",
      header: "Tags",
      wideOnly: true,
      cell: (lead) => <Tags tags={lead.tags} />,
    },
    {
      key: "created",
      header: "Created",
      wideOnly: true,
      sortValue: (l) => l.created,
      cell: (lead) => formatDate(lead.created),
    },
  ];
}

export function LeadsTable({
  rows,
  kept,
  selection,
  sort,
  onSortChange,
  busy,
  reload,
}: {
  rows: Lead[];
  kept: Set<string>;
  selection: SelectionState<Lead>;
  sort: Sort | null;
  onSortChange(sort: Sort | null): void;
  busy: boolean;
  reload(outcome?: string): void;
}) {
  const staleAfterDays = useStaleAfterDays();
  return (
    <DataTable
      label="Leads"
      rows={rows}
      columns={columns(kept, reload, staleAfterDays)}
      rowKey={(l) => l.id}
      testId="leads-table"
      rowTestId="lead-row"
      sort={sort}
      onSortChange={onSortChange}
      busy={busy}
      selection={{
        isSelected: (l) => selection.has(l.id),
        toggle: selection.toggle,
        allSelected: rows.length > 0 && rows.every((l) => selection.has(l.id)),
        toggleAll: () => selection.toggleAll(rows),
        rowLabel: (l) => `Select ${l.email}`,
        allLabel: "Select all leads on this page",
      }}
    />
  );
}
