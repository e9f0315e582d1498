// Wire shapes of the lead endpoints (spec "Lead", decisions §4). Input accepts the camelCase shape
// and the overview's snake_case aliases; output is camelCase.
import { type Static, Type } from "@sinclair/typebox";
import { EMAIL_REASON_DOC, EMAIL_VALID_DOC, EmailReasonSchema } from "../checks/email/email.schemas.js";
import { VERDICT_DOC } from "../checks/vocabulary.js";
import { MULTILINE } from "../lib/safe-text.js";
import { Nullable, PageLimit, PageOffset, Timestamp } from "../lib/schema.js";

const PRIORITIES = ["low", "normal", "high", "urgent"] as const;
const SOURCES = ["manual", "api", "csv", "google_sheets", "hubspot"] as const;
const VALIDATION_STATUSES = ["new", "processing", "valid", "invalid", "risky"] as const;
const RECOMMENDATIONS = ["high_priority", "validate", "research", "skip"] as const;

export const TAG_MAX_CHARS = 100;
export const TAGS_PER_LEAD_MAX = 100;

const Str = (maxLength: number, minLength = 0) => Type.String({ maxLength, minLength });
const Opt = <T extends ReturnType<typeof Str>>(s: T) => Type.Optional(Nullable(s));

/** Fields that may be set on create and on update (all optional here; `email` is checked by the service). */
const EditableFields = {
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
  website: Opt(Str(255)),
  domain: Opt(Str(255)),
  firstName: Opt(Str(100, 1)),
  first_name: Opt(Str(100, 1)),
  lastName: Opt(Str(100, 1)),
  last_name: Opt(Str(100, 1)),
  company: Opt(Str(200)),
  title: Opt(Str(100)),
  phone: Opt(Str(50)),
  linkedIn: Opt(Str(500)),
  twitter: Opt(Str(500)),
  leadServiceCategory: Opt(Str(200)),
  lead_service_category: Opt(Str(200)),
  leadServiceSubcategory: Opt(Str(200)),
  lead_service_subcategory: Opt(Str(200)),
  campaign: Opt(Str(200)),
  tags: Type.Optional(
    Nullable(
      Type.Array(Type.String({ minLength: 1, maxLength: TAG_MAX_CHARS }), { maxItems: TAGS_PER_LEAD_MAX }),
    ),
  ),
  notes: Opt(Type.String({ maxLength: 10_000, [MULTILINE]: true })),
  priority: Type.Optional(Type.Union(PRIORITIES.map((p) => Type.Literal(p)))),
  status: Type.Optional(Type.Boolean({ description: "active (true) or inactive" })),
  customFields: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
  custom_fields: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
};

export const LeadCreateBody = Type.Object(
  {
    ...EditableFields,
    email: Type.String({ minLength: 1, maxLength: 254 }),
    validate: Type.Optional(Type.Boolean({ default: true })),
    source: Type.Optional(Type.Union(SOURCES.map((s) => Type.Literal(s)))),
  },
  { additionalProperties: true },
);
export type LeadCreateInput = Static<typeof LeadCreateBody>;

export const LeadUpdateBody = Type.Object(EditableFields, { additionalProperties: true });
export type LeadUpdateInput = Static<typeof LeadUpdateBody>;

const RatingFactor = Type.Object({
  code: Type.String(),
  label: Type.String(),
  points: Type.Number(),
});

/** One observation behind a parked verdict (docs/decisions/0011-parked-page-evidence.md). */
const ParkedEvidenceItem = Type.Object({
  signal: Type.String({
    description:
      "Where it was seen: ns, cname, address, redirect, url, page, title, text, link, script, iframe, form, refresh, js_redirect, cookie, txt, thin_page, random_path or wildcard_dns; the page model's contributions are structure, wording or rules (ADR 0011)",
  }),
  value: Type.String({ description: "What was observed (a host, a URL, the matched pattern)" }),
  provider: Type.String(),
  type: Type.String({ description: "parking, marketplace, placeholder, ..." }),
  weight: Type.Integer({ description: "Points toward the parked threshold (60)" }),
});
/** The lead's domain facts (ADR 0012): registration, reputation, mail records, certificate. */
const LeadDomainFacts = Type.Object({
  domain: Type.String({
    description: "The domain these facts describe (the email's, or the website's for free-mail leads)",
  }),
  registrableDomain: Nullable(Type.String()),
  registration: Type.String({ description: "registered, not_registered, unsupported or unknown" }),
  registrationReason: Nullable(Type.String({ description: "Why registration is unsupported or unknown" })),
  registeredAt: Nullable(Timestamp),
  expiresAt: Nullable(Timestamp),
  registrar: Nullable(Type.String()),
  ageDays: Nullable(Type.Integer()),
  reputation: Type.String({ description: "listed, clean, unknown or off" }),
  domainListed: Nullable(Type.Boolean()),
  mxListed: Nullable(Type.Boolean()),
  listings: Type.Array(
    Type.Object({ zone: Type.String(), subject: Type.String(), meaning: Nullable(Type.String()) }),
  ),
  spf: Type.String({ description: "present, absent or unknown" }),
  spfAll: Nullable(Type.String({ description: "-all, ~all, ?all or +all" })),
  dmarc: Type.String({ description: "present, absent or unknown" }),
  dmarcPolicy: Nullable(Type.String({ description: "none, quarantine or reject" })),
  nullMx: Nullable(Type.Boolean()),
  starttls: Nullable(Type.Boolean({ description: "The MX host offered STARTTLS (null: not reached)" })),
  certificate: Nullable(
    Type.Object({
      issuer: Nullable(Type.String()),
      notAfter: Nullable(Timestamp),
      daysToExpiry: Nullable(Type.Integer()),
      hsts: Type.Boolean(),
    }),
  ),
});
export type LeadDomainFactsView = Static<typeof LeadDomainFacts>;

export const Lead = Type.Object({
  id: Type.String(),
  email: Type.String(),
  website: Nullable(Type.String()),
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  company: Nullable(Type.String()),
  title: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  linkedIn: Nullable(Type.String()),
  twitter: Nullable(Type.String()),
  leadServiceCategory: Nullable(Type.String()),
  leadServiceSubcategory: Nullable(Type.String()),
  campaign: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  notes: Nullable(Type.String()),
  priority: Type.String(),
  status: Type.Boolean(),
  validationStatus: Type.String(),
  leadDeliverabilityRating: Type.Integer({ minimum: 0, maximum: 100 }),
  leadRecommendation: Nullable(
    Type.Union(RECOMMENDATIONS.map((r) => Type.Literal(r))),
    "null until the lead's first validation (leadDeliverabilityRating is 0 until then)",
  ),
  leadQuality: Nullable(Type.String(), "The rating's band; null until the lead's first validation"),
  ratingFactors: Type.Array(RatingFactor),
  emailValid: Type.Union([Type.Boolean(), Type.Null()], {
    description: `${EMAIL_VALID_DOC} Null until validated.`,
  }),
  emailCatchAll: Nullable(Type.Boolean()),
  emailDisposable: Nullable(Type.Boolean()),
  emailService: Nullable(Type.String()),
  emailScore: Nullable(Type.Integer()),
  emailType: Nullable(Type.String()),
  emailRisk: Nullable(Type.String()),
  emailReason: Type.Union([EmailReasonSchema, Type.Null()], {
    description: `The email verdict's reason; null until validated:\n${EMAIL_REASON_DOC}`,
  }),
  emailStatus: Nullable(
    Type.String(),
    `The email verdict, null until the lead's first validation: ${VERDICT_DOC}`,
  ),
  domainHttpStatus: Nullable(Type.Integer()),
  domainFinalUrl: Nullable(Type.String()),
  domainSslValid: Nullable(
    Type.Boolean({
      description:
        "true: the final URL is https with a verified certificate. false: the site answered but offers no working HTTPS (http only, or a certificate problem). null: not validated, no website, or no server was reached at all (DNS failure, every connection refused or timed out).",
    }),
  ),
  domainParked: Nullable(
    Type.Boolean({
      description:
        "true: the website is parked, for sale or a placeholder (see websiteParkedKind and websiteParkedEvidence); the lead is then `risky`. null: not validated, no website, or no HTTP response arrived, so no page was judged.",
    }),
  ),
  websiteParkedKind: Nullable(
    Type.Union([Type.Literal("parked"), Type.Literal("placeholder")], {
      description:
        "When domainParked is true: `parked` (parking lander, marketplace or for-sale page) or `placeholder` (server or control-panel default page, registrar holding page, coming soon). Otherwise null.",
    }),
  ),
  websiteParkedEvidence: Nullable(
    Type.Array(ParkedEvidenceItem, {
      description: "When domainParked is true, the observations that made the verdict; otherwise null.",
    }),
  ),
  domainResponseTimeMs: Nullable(Type.Integer()),
  domainScore: Nullable(Type.Integer()),
  normalizedEmail: Type.String({
    description: "The address with provider aliases folded; duplicates are refused on it",
  }),
  domainAgeDays: Nullable(
    Type.Integer({ description: "Days since the domain's registration, as of validation" }),
  ),
  domainListed: Nullable(
    Type.Boolean({ description: "Domain or MX address on a block list (null: unknown)" }),
  ),
  didYouMean: Nullable(
    Type.String({ description: "The corrected address when the email's domain looks mistyped" }),
  ),
  domainFacts: Nullable(LeadDomainFacts),
  validatedAt: Nullable(Timestamp),
  source: Type.String(),
  externalSource: Nullable(
    Type.String({ description: "google_sheets or hubspot when the lead came from a sync" }),
  ),
  externalId: Nullable(Type.String({ description: "<spreadsheetId>!<sheet> or the HubSpot contact id" })),
  externalUrl: Nullable(
    Type.String({
      description:
        "The lead's spreadsheet, or its HubSpot contact record (https://app.hubspot.com/contacts/{portalId}/record/0-1/{contactId}); null when not synced or the portal is not known",
    }),
  ),
  syncedAt: Nullable(Timestamp),
  customFields: Type.Record(Type.String(), Type.Unknown()),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  created: Timestamp,
  updated: Timestamp,
});
export type LeadView = Static<typeof Lead>;

export const LeadListQuery = Type.Object({
  limit: PageLimit,
  offset: PageOffset,
  emailValid: Type.Optional(Type.Boolean()),
  minDeliverabilityRating: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  maxDeliverabilityRating: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  min_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  max_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  validationStatus: Type.Optional(Type.Union(VALIDATION_STATUSES.map((s) => Type.Literal(s)))),
  status: Type.Optional(Type.Union(VALIDATION_STATUSES.map((s) => Type.Literal(s)))),
  leadRecommendation: Type.Optional(Type.Union(RECOMMENDATIONS.map((s) => Type.Literal(s)))),
  campaign: Type.Optional(Type.String({ maxLength: 200 })),
  source: Type.Optional(Type.Union(SOURCES.map((s) => Type.Literal(s)))),
  search: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        "Case-insensitive text found anywhere in the email, first name, last name or company (indexed from 3 characters)",
    }),
  ),
  tag: Type.Optional(
    Type.String({ minLength: 1, maxLength: TAG_MAX_CHARS, description: "Leads carrying this tag" }),
  ),
  minDomainAgeDays: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: "Leads whose domain was registered at least this many days before validation",
    }),
  ),
  maxDomainAgeDays: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        "Leads whose domain was registered at most this many days before validation (young domains)",
    }),
  ),
  domainListed: Type.Optional(
    Type.Boolean({
      description: "true: domain or MX address on a block list; false: checked and not listed",
    }),
  ),
  hasDidYouMean: Type.Optional(Type.Boolean({ description: "true: the email's domain looks mistyped" })),
});
export type LeadListInput = Static<typeof LeadListQuery>;

// Request and answer shapes of the lead routes beyond the lead itself.

const SELECTION_MAX = 500;

export const LeadIdParams = Type.Object({ leadId: Type.String({ minLength: 1, maxLength: 100 }) });

export const BulkBody = Type.Object({
  leads: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: 1, maxItems: 500 }),
  validate: Type.Optional(Type.Boolean({ default: true })),
});

export const LeadIds = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: SELECTION_MAX,
  description: `1-${SELECTION_MAX} ids of the account's live leads; any other id refuses the whole request (404 with details.missingLeadIds)`,
});

export const TagList = Type.Array(Type.String({ minLength: 1, maxLength: TAG_MAX_CHARS }), { maxItems: 20 });

export const ValidateBody = Type.Object({
  leadIds: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 500 }),
  ),
  lead_ids: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 500 }),
  ),
  webhookUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
});

/** The answer of the all-or-none imports (CSV file, pasted emails). */
export const ImportResult = Type.Object({
  batchId: Nullable(Type.String()),
  status: Type.String(),
  created: Type.Integer(),
  pollUrl: Nullable(Type.String()),
  leadIds: Type.Array(Type.String()),
  suppressed: Type.Array(Type.Object({ line: Nullable(Type.Integer()), email: Type.String() }), {
    description:
      "Rows skipped, not created: their address was erased from this account and the account refuses erased addresses (`suppress_erased_emails`, GET/PUT /v1/settings/retention). `line` is the CSV line (null for a pasted list).",
  }),
});

export function importAnswer(result: {
  batchId: string | null;
  created: number;
  leads: { id: string }[];
  suppressed: { line: number | null; email: string }[];
}) {
  return {
    batchId: result.batchId,
    status: result.batchId ? "processing" : "completed",
    created: result.created,
    pollUrl: result.batchId ? `/v1/batches/${result.batchId}` : null,
    leadIds: result.leads.map((lead) => lead.id),
    suppressed: result.suppressed.map(({ line, email }) => ({ line, email })),
  };
}

/** GET /v1/leads's parameters without paging, plus the format. */
export const ExportQuery = Type.Composite([
  Type.Omit(LeadListQuery, ["limit", "offset"]),
  Type.Object({ format: Type.Optional(Type.Literal("csv", { default: "csv" })) }),
]);
