// The leads search and filters: every filter GET /v1/leads offers. On a phone the filters fold
// behind one toggle (with the number in use), so the first lead is on the first screen.
import { type FormEvent, type ReactNode, useEffect, useState } from "react";
import { useNarrow } from "../components/use-media.js";
import { RECOMMENDATION, SOURCE, VALIDATION_STATUS } from "../labels.js";
import { activeFilterCount, type FilterName, type Filters, filtersOf } from "./leads-query.js";

function Choice({
  label,
  name,
  value,
  onChange,
  options,
}: {
  label: string;
  name: FilterName;
  value: string;
  onChange(e: { target: { value: string } }): void;
  options: Record<string, string>;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={onChange} name={name}>
        <option value="">Any</option>
        {Object.entries(options).map(([v, words]) => (
          <option key={v} value={v}>
            {words}
          </option>
        ))}
      </select>
    </label>
  );
}

function NumberInput(props: {
  label: string;
  name: FilterName;
  value: string;
  onChange(e: { target: { value: string } }): void;
}) {
  return (
    <label>
      {props.label}
      <input inputMode="numeric" value={props.value} onChange={props.onChange} name={props.name} size={5} />
    </label>
  );
}

export function LeadFilters({
  applied,
  addressKey,
  onApply,
  onClear,
}: {
  applied: Filters;
  /** The address query: the draft follows it (back/forward, Clear). */
  addressKey: string;
  onApply(filters: Filters): void;
  onClear(): void;
}) {
  const narrow = useNarrow();
  const [draft, setDraft] = useState<Filters>(applied);
  const [open, setOpen] = useState(false);
  useEffect(() => setDraft(filtersOf(new URLSearchParams(addressKey))), [addressKey]);
  const set = (name: FilterName) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [name]: e.target.value }));
  const apply = (event: FormEvent) => {
    event.preventDefault();
    // On a phone the panel folds again, so the results are what the screen shows.
    setOpen(false);
    onApply(draft);
  };
  const inUse = activeFilterCount(applied);

  const form: ReactNode = (
    <form
      className="filters"
      onSubmit={apply}
      aria-label="Filter leads"
      data-testid="lead-filters"
      id="lead-filters"
    >
      <Choice
        label="Validation status"
        name="validationStatus"
        value={draft.validationStatus}
        onChange={set("validationStatus")}
        options={VALIDATION_STATUS}
      />
      <Choice
        label="Recommendation"
        name="leadRecommendation"
        value={draft.leadRecommendation}
        onChange={set("leadRecommendation")}
        options={RECOMMENDATION}
      />
      <Choice
        label="Email deliverable"
        name="emailValid"
        value={draft.emailValid}
        onChange={set("emailValid")}
        options={{ true: "Yes", false: "No" }}
      />
      <NumberInput
        label="Rating from"
        name="minDeliverabilityRating"
        value={draft.minDeliverabilityRating}
        onChange={set("minDeliverabilityRating")}
      />
      <NumberInput
        label="Rating to"
        name="maxDeliverabilityRating"
        value={draft.maxDeliverabilityRating}
        onChange={set("maxDeliverabilityRating")}
      />
      <NumberInput
        label="Domain age from (days)"
        name="minDomainAgeDays"
        value={draft.minDomainAgeDays}
        onChange={set("minDomainAgeDays")}
      />
      <NumberInput
        label="Domain age to (days)"
        name="maxDomainAgeDays"
        value={draft.maxDomainAgeDays}
        onChange={set("maxDomainAgeDays")}
      />
      <Choice
        label="On a block list"
        name="domainListed"
        value={draft.domainListed}
        onChange={set("domainListed")}
        options={{ true: "Listed", false: "Not listed" }}
      />
      <Choice
        label="Did you mean"
        name="hasDidYouMean"
        value={draft.hasDidYouMean}
        onChange={set("hasDidYouMean")}
        options={{ true: "Suggested", false: "None" }}
      />
      <label>
        Tag
        <input value={draft.tag} onChange={set("tag")} name="tag" maxLength={100} />
      </label>
      <label>
        Campaign
        <input value={draft.campaign} onChange={set("campaign")} name="campaign" maxLength={200} />
      </label>
      <Choice label="Source" name="source" value={draft.source} onChange={set("source")} options={SOURCE} />
      <div className="actions">
        <button type="submit">Apply filters</button>
        {inUse > 0 || applied.search ? (
          <button type="button" onClick={onClear}>
            Clear
          </button>
        ) : null}
      </div>
    </form>
  );

  return (
    <>
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
          {narrow ? (
            <button
              type="button"
              aria-expanded={open}
              aria-controls="lead-filters"
              onClick={() => setOpen((o) => !o)}
              data-testid="filters-toggle"
            >
              Filters{inUse > 0 ? ` (${inUse})` : ""}
            </button>
          ) : null}
        </form>
      </search>
      <div hidden={narrow && !open}>{form}</div>
    </>
  );
}
