// Validates leads with the two engines and turns their answers into the stored lead fields and
// the rating. The email is always checked, the website when the lead has one. Work is shared: the
// email engine groups addresses by domain and MX (one DNS lookup, one catch-all probe and one SMTP
// session serve a domain's leads) and each distinct website is checked once per call.
import type {
  EmailVerdict,
  EmailVerificationProvider,
  VerifyOptions,
} from "../../checks/email/email.types.js";
import type { WebsiteChecker, WebsiteCheckResult } from "../../checks/website/website.types.js";
import { mapLimit, untilAborted } from "../../lib/concurrency.js";
import type { LeadsTable } from "../../storage/schema.js";
import { type EmailOutcome, type LeadRating, rateLead, type WebsiteOutcome } from "../lead-rating.js";
import type { LeadDomainFactsView } from "../leads.schemas.js";
import { domainFactsOf, domainOutcomeOf } from "./domain-facts.js";

export interface LeadValidation {
  leadId: string;
  email: EmailVerdict;
  website: WebsiteCheckResult | null;
  rating: LeadRating;
  domainScore: number | null;
  domainFacts: LeadDomainFactsView | null;
}

export interface LeadValidatorDeps {
  email: EmailVerificationProvider;
  website: WebsiteChecker;
  websiteScore: (result: WebsiteCheckResult) => { score: number };
  /** Website checks in flight at once. */
  websiteConcurrency?: number;
}

export function emailOutcomeOf(v: EmailVerdict): EmailOutcome {
  return {
    status: v.status,
    valid: v.valid,
    catchAll: v.catchAll,
    disposable: v.disposable,
    role: v.role,
    free: v.free,
    risk: v.emailRisk,
  };
}

export function websiteOutcomeOf(w: WebsiteCheckResult): WebsiteOutcome {
  return {
    status: w.status,
    httpStatus: w.httpStatus,
    sslValid: w.sslValid,
    isParked: w.isParked,
    parkedKind: w.details.parked.kind,
    responseTimeMs: w.responseTimeMs,
    redirectCount: Math.max(0, w.redirectChain.length - 1),
  };
}

export class LeadValidator {
  constructor(private readonly deps: LeadValidatorDeps) {}

  /** `signal`: the caller's job ran out of time. The website checks stop at once; the email
   *  probes, shared with other callers, end within their own SMTP deadline, unawaited. Rejects
   *  with the abort reason, so no half-finished answer is taken for a result. `emailOptions`:
   *  a background job's RFC 5321 budget (batch chunks keep the interactive timeouts) and the
   *  leads' account (`accountId`), whose data space decides between live and scripted checks. */
  async validate(
    leads: readonly Pick<LeadsTable, "id" | "email" | "website">[],
    signal?: AbortSignal,
    emailOptions: VerifyOptions = {},
  ): Promise<LeadValidation[]> {
    const websites = [...new Set(leads.map((l) => l.website).filter((w): w is string => Boolean(w)))];
    // emailOptions.accountId names the leads' data space: a test space's checks are scripted.
    const { accountId } = emailOptions;
    const checkOptions = { ...(signal ? { signal } : {}), ...(accountId === undefined ? {} : { accountId }) };
    const [verdicts, siteResults] = await untilAborted(
      Promise.all([
        this.deps.email.verifyMany(
          leads.map((l) => l.email),
          emailOptions,
        ),
        mapLimit(websites, this.deps.websiteConcurrency ?? 50, (w) =>
          this.deps.website.check(w, checkOptions),
        ),
      ]),
      signal,
    );
    const bySite = new Map(websites.map((w, i) => [w, siteResults[i]!]));
    return leads.map((lead, i) => {
      const email = verdicts[i]!;
      const website = lead.website ? (bySite.get(lead.website) ?? null) : null;
      const domainFacts = domainFactsOf(email, website);
      return {
        leadId: lead.id,
        email,
        website,
        rating: rateLead(
          emailOutcomeOf(email),
          website ? websiteOutcomeOf(website) : null,
          domainOutcomeOf(domainFacts, email, website),
        ),
        domainScore: website ? this.deps.websiteScore(website).score : null,
        domainFacts,
      };
    });
  }
}

const flag = (b: boolean) => (b ? 1 : 0);
/** Unknown stays unknown in storage: null, never 0. */
const maybeFlag = (b: boolean | null) => (b === null ? null : flag(b));

/** The parked evidence a lead keeps: what was seen and how much it weighed, not the row sources. */
function parkedEvidenceOf(w: WebsiteCheckResult): string | null {
  if (w.isParked !== true) return null;
  const items = w.details.parked.evidence.map(({ signal, value, provider, type, weight }) => ({
    signal,
    value,
    provider,
    type,
    weight,
  }));
  return JSON.stringify(items);
}

/** The lead columns a validation sets. */
export function leadColumnsOf(v: LeadValidation, at: string): Partial<LeadsTable> {
  const w = v.website;
  return {
    validation_status: v.rating.validationStatus,
    rating: v.rating.rating,
    recommendation: v.rating.recommendation,
    quality: v.rating.quality,
    rating_factors: JSON.stringify(v.rating.factors),
    // Unknown is never written as false (an unknown verdict leaves emailValid null).
    email_valid: v.email.valid === null ? null : flag(v.email.valid),
    email_catch_all: flag(v.email.catchAll),
    email_disposable: flag(v.email.disposable),
    email_service: v.email.service,
    email_score: v.email.emailScore,
    email_type: v.email.emailType,
    email_risk: v.email.emailRisk,
    email_status: v.email.status,
    email_reason: v.email.reason,
    domain_status: w ? w.status : null,
    domain_http_status: w ? w.httpStatus : null,
    domain_final_url: w ? w.finalUrl : null,
    domain_ssl_valid: w ? maybeFlag(w.sslValid) : null,
    domain_parked: w ? maybeFlag(w.isParked) : null,
    website_parked_kind: w?.isParked ? w.details.parked.kind : null,
    website_parked_evidence: w ? parkedEvidenceOf(w) : null,
    domain_response_time_ms: w ? Math.round(w.responseTimeMs) : null,
    domain_score: v.domainScore,
    domain_age_days: v.domainFacts?.ageDays ?? null,
    // 0 only when every zone answered "not listed"; a zone that could not answer leaves it unknown.
    domain_listed:
      v.domainFacts?.domainListed || v.domainFacts?.mxListed
        ? 1
        : v.domainFacts?.reputation === "clean"
          ? 0
          : null,
    did_you_mean: v.email.didYouMean ?? null,
    domain_intel: v.domainFacts ? JSON.stringify(v.domainFacts) : null,
    validation_details: JSON.stringify({
      email: {
        reason: v.email.reason,
        domain: v.email.domain,
        free: v.email.free,
        role: v.email.role,
        details: v.email.details,
      },
      website: w ? { redirectChain: w.redirectChain, error: w.error, details: w.details } : null,
    }),
    validated_at: at,
    updated_at: at,
  };
}
