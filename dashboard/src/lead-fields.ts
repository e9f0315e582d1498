// Fields other parts of the API add to a lead over time (emailReason, websiteParkedKind,
// domainAgeDays, didYouMean...). The dashboard shows them when a lead has them, typed or not yet.

/** The named field of a lead when present and not null. */
export function optionalField<T>(lead: object, name: string): T | undefined {
  const value = (lead as Record<string, unknown>)[name];
  return value === null || value === undefined ? undefined : (value as T);
}
