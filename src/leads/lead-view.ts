// A stored lead row as the API shows it (camelCase, booleans, parsed JSON).
import type { EmailReason } from "../checks/email/email.types.js";
import type { LeadsTable } from "../storage/schema.js";
import type { LeadDomainFactsView, LeadView } from "./leads.schemas.js";

const bool = (v: number | null) => (v === null ? null : v === 1);
const parkedKind = (v: string | null) => (v === "parked" || v === "placeholder" ? v : null);

export function toLeadView(row: LeadsTable): LeadView {
  return {
    id: row.id,
    email: row.email,
    website: row.website,
    firstName: row.first_name,
    lastName: row.last_name,
    company: row.company,
    title: row.title,
    phone: row.phone,
    linkedIn: row.linkedin,
    twitter: row.twitter,
    leadServiceCategory: row.service_category,
    leadServiceSubcategory: row.service_subcategory,
    campaign: row.campaign,
    tags: JSON.parse(row.tags),
    notes: row.notes,
    priority: row.priority,
    status: row.active === 1,
    validationStatus: row.validation_status,
    leadDeliverabilityRating: Number(row.rating),
    // Never validated: no recommendation and no band yet, not "skip" and "poor" (ADR 0015).
    leadRecommendation:
      row.validated_at === null ? null : (row.recommendation as LeadView["leadRecommendation"]),
    leadQuality: row.validated_at === null ? null : row.quality,
    ratingFactors: JSON.parse(row.rating_factors),
    emailValid: bool(row.email_valid),
    emailCatchAll: bool(row.email_catch_all),
    emailDisposable: bool(row.email_disposable),
    emailService: row.email_service,
    emailScore: row.email_score,
    emailType: row.email_type,
    emailRisk: row.email_risk,
    emailReason: row.email_reason as EmailReason | null,
    emailStatus: row.validated_at === null ? null : row.email_status,
    domainHttpStatus: row.domain_http_status,
    domainFinalUrl: row.domain_final_url,
    domainSslValid: bool(row.domain_ssl_valid),
    domainParked: bool(row.domain_parked),
    websiteParkedKind: parkedKind(row.website_parked_kind),
    websiteParkedEvidence: row.website_parked_evidence ? JSON.parse(row.website_parked_evidence) : null,
    domainResponseTimeMs: row.domain_response_time_ms,
    domainScore: row.domain_score,
    normalizedEmail: row.normalized_email ?? row.email_lower,
    domainAgeDays: row.domain_age_days,
    domainListed: bool(row.domain_listed),
    didYouMean: row.did_you_mean,
    domainFacts: row.domain_intel === null ? null : (JSON.parse(row.domain_intel) as LeadDomainFactsView),
    validatedAt: row.validated_at,
    source: row.source,
    externalSource: row.external_source ?? null,
    externalId: row.external_id ?? null,
    externalUrl: externalUrl(row),
    syncedAt: row.synced_at ?? null,
    customFields: JSON.parse(row.custom_fields),
    metadata: JSON.parse(row.metadata),
    created: row.created_at,
    updated: row.updated_at,
  };
}

/** Where a synced lead lives outside leadcheck: its spreadsheet, or its HubSpot contact record
 *  (which needs the portal id, recorded since migration 0034; null for contacts synced before). */
function externalUrl(row: LeadsTable): string | null {
  const id = row.external_id;
  if (!id) return null;
  if (row.external_source === "hubspot")
    return row.external_account
      ? `https://app.hubspot.com/contacts/${encodeURIComponent(row.external_account)}/record/0-1/${encodeURIComponent(id)}`
      : null;
  if (row.external_source === "google_sheets") {
    const bang = id.indexOf("!");
    return `https://docs.google.com/spreadsheets/d/${encodeURIComponent(bang < 0 ? id : id.slice(0, bang))}/edit`;
  }
  return null;
}
