// The leads list's state lives in the address, so a view can be bookmarked: every filter of
// GET /v1/leads (src/leads/leads.schemas.ts LeadListQuery), the page, and a sort. The API has no
// sort parameter (it lists newest first), so the sort orders the rows of the current page only.
import type { LeadListQuery } from "../../../sdk/src/api-types.js";
import type { Sort } from "../components/data-table.js";

export const FILTERS = [
  "search",
  "tag",
  "validationStatus",
  "leadRecommendation",
  "emailValid",
  "minDeliverabilityRating",
  "maxDeliverabilityRating",
  "campaign",
  "source",
  "minDomainAgeDays",
  "maxDomainAgeDays",
  "domainListed",
  "hasDidYouMean",
] as const;
export type FilterName = (typeof FILTERS)[number];
export type Filters = Record<FilterName, string>;

const BOOLEAN_FILTERS = new Set<FilterName>(["emailValid", "domainListed", "hasDidYouMean"]);
const INTEGER_FILTERS = new Set<FilterName>([
  "minDeliverabilityRating",
  "maxDeliverabilityRating",
  "minDomainAgeDays",
  "maxDomainAgeDays",
]);

export const LIMITS = [20, 50, 100];

const SORT_KEYS = ["email", "website", "rating", "verdict", "recommendation", "created"] as const;

export function filtersOf(query: URLSearchParams): Filters {
  return Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ""])) as Filters;
}

export const activeFilterCount = (filters: Filters): number =>
  FILTERS.filter((name) => name !== "search" && filters[name].trim() !== "").length;

/** The address query as the SDK's typed query; bad numbers are passed on for the API to refuse. */
export function listQueryOf(filters: Filters, limit: number, offset: number): LeadListQuery {
  const query: Record<string, unknown> = { limit, offset };
  for (const name of FILTERS) {
    const value = filters[name].trim();
    if (value === "") continue;
    if (BOOLEAN_FILTERS.has(name)) query[name] = value === "true";
    else if (INTEGER_FILTERS.has(name)) query[name] = /^-?\d+$/.test(value) ? Number(value) : value;
    else query[name] = value;
  }
  return query as LeadListQuery;
}

/** "rating:desc" in the address; anything else is no sort. */
export function sortOf(query: URLSearchParams): Sort | null {
  const [key, dir] = (query.get("sort") ?? "").split(":");
  if (!key || !(SORT_KEYS as readonly string[]).includes(key)) return null;
  return { key, dir: dir === "desc" ? "desc" : "asc" };
}

export function hrefOf(filters: Filters, limit: number, offset: number, sort: Sort | null = null): string {
  const params = new URLSearchParams();
  for (const name of FILTERS) if (filters[name].trim()) params.set(name, filters[name].trim());
  if (limit !== LIMITS[0]) params.set("limit", String(limit));
  if (offset > 0) params.set("offset", String(offset));
  if (sort) params.set("sort", `${sort.key}:${sort.dir}`);
  const text = params.toString();
  return `/leads${text ? `?${text}` : ""}`;
}
