// The lead rating (decisions §4): an explainable 0-100 score from the email result and the
// website result, with every factor that made it, plus the recommendation band (seed), the
// quality label (second description) and the validation status rule.

export interface EmailOutcome {
  status: "valid" | "invalid" | "risky" | "unknown";
  /** The mailbox accepted the address. */
  /** null when the email verdict is unknown. */
  valid: boolean | null;
  catchAll: boolean;
  disposable: boolean;
  role: boolean;
  free: boolean;
  risk: "low" | "medium" | "high";
}

export interface WebsiteOutcome {
  status: "active" | "inactive" | "error";
  httpStatus: number | null;
  /** null: no server was reached, so TLS is unknown (not invalid). */
  sslValid: boolean | null;
  /** null: no page was judged. */
  isParked: boolean | null;
  /** Set when parked: a parking/for-sale page or a placeholder (default or holding page). */
  parkedKind?: "parked" | "placeholder" | null;
  responseTimeMs: number;
  redirectCount: number;
}

/** Domain intelligence as the rating reads it (ADR 0012); unknown facts are null and cost nothing. */
export interface DomainOutcome {
  /** Days since registration (RDAP). */
  ageDays: number | null;
  /** The registrable domain is on a domain block list. */
  domainListed: boolean | null;
  /** An MX host address is on an address block list. */
  mxListed: boolean | null;
  spf: "present" | "absent" | "unknown";
  dmarc: "present" | "absent" | "unknown";
  nullMx: boolean | null;
  /** Days until the website's certificate expires. */
  certDaysToExpiry: number | null;
  /** The corrected address when the email's domain looks mistyped. */
  didYouMean: string | null;
}

const YOUNG_DOMAIN_DAYS = 90;
const ESTABLISHED_DOMAIN_DAYS = 5 * 365;
const CERT_EXPIRY_WARNING_DAYS = 14;

interface RatingFactor {
  code: string;
  label: string;
  points: number;
}

export type Recommendation = "high_priority" | "validate" | "research" | "skip";
export type Quality = "excellent" | "good" | "fair" | "poor";
type ValidationVerdict = "valid" | "invalid" | "risky";

export interface LeadRating {
  rating: number;
  recommendation: Recommendation;
  quality: Quality;
  factors: RatingFactor[];
  validationStatus: ValidationVerdict;
}

export function recommendationFor(rating: number): Recommendation {
  if (rating >= 85) return "high_priority";
  if (rating >= 70) return "validate";
  if (rating >= 50) return "research";
  return "skip";
}

export function qualityFor(rating: number): Quality {
  if (rating >= 90) return "excellent";
  if (rating >= 70) return "good";
  if (rating >= 50) return "fair";
  return "poor";
}

function emailFactors(email: EmailOutcome): RatingFactor[] {
  const f: RatingFactor[] = [];
  if (email.status === "invalid")
    f.push({ code: "email_undeliverable", label: "Email is undeliverable", points: 0 });
  else if (email.valid && !email.catchAll)
    f.push({ code: "email_deliverable", label: "Mailbox confirmed by SMTP", points: 60 });
  else if (email.catchAll)
    f.push({ code: "email_catch_all", label: "Domain accepts any address (catch-all)", points: 35 });
  else f.push({ code: "email_unverified", label: "Mailbox could not be confirmed", points: 20 });
  if (email.status === "invalid") return f;
  if (email.disposable) f.push({ code: "email_disposable", label: "Disposable email provider", points: -30 });
  if (email.role) f.push({ code: "email_role", label: "Role account (info@, sales@, ...)", points: -10 });
  if (email.free)
    f.push({ code: "email_free_provider", label: "Free email provider, not a company domain", points: -5 });
  if (email.risk === "high") f.push({ code: "email_high_risk", label: "High email risk", points: -10 });
  else if (email.risk === "medium")
    f.push({ code: "email_medium_risk", label: "Medium email risk", points: -5 });
  return f;
}

function websiteFactors(site: WebsiteOutcome | null): RatingFactor[] {
  // Missing information is neutral: a lead that gave no website neither gains nor loses (ADR 0004).
  if (!site)
    return [{ code: "no_website", label: "No website given: nothing to add or take away", points: 0 }];
  const f: RatingFactor[] = [];
  if (site.status === "active")
    f.push({ code: "website_active", label: "Website answers (2xx-3xx)", points: 20 });
  else if (site.status === "inactive") {
    f.push({
      code: "website_inactive",
      label: `Website answers with an error (${site.httpStatus ?? "timeout"})`,
      points: 5,
    });
  } else f.push({ code: "website_unreachable", label: "Website unreachable (DNS or network)", points: 0 });
  if (site.status === "error") return f;
  if (site.sslValid === true) f.push({ code: "ssl_valid", label: "Valid TLS certificate", points: 8 });
  else if (site.sslValid === false)
    f.push({ code: "ssl_invalid", label: "No valid TLS certificate", points: 0 });
  else f.push({ code: "ssl_unknown", label: "TLS not checked: no server reached", points: 0 });
  if (site.isParked === true && site.parkedKind === "placeholder")
    f.push({ code: "domain_placeholder", label: "Placeholder page (default or coming soon)", points: -25 });
  else if (site.isParked === true)
    f.push({ code: "domain_parked", label: "Parked or for-sale domain", points: -25 });
  else if (site.isParked === false)
    f.push({ code: "domain_not_parked", label: "Not a parked domain", points: 6 });
  else f.push({ code: "parked_unknown", label: "Parked state unknown: no page received", points: 0 });
  if (site.responseTimeMs < 1000)
    f.push({ code: "fast_response", label: "Responds in under 1 s", points: 4 });
  else if (site.responseTimeMs < 3000)
    f.push({ code: "ok_response", label: "Responds in under 3 s", points: 2 });
  else f.push({ code: "slow_response", label: "Responds in 3 s or more", points: 0 });
  if (site.redirectCount <= 2) f.push({ code: "few_redirects", label: "At most 2 redirects", points: 2 });
  else f.push({ code: "many_redirects", label: `${site.redirectCount} redirects`, points: 0 });
  return f;
}

function domainFactors(d: DomainOutcome): RatingFactor[] {
  const f: RatingFactor[] = [];
  if (d.ageDays !== null && d.ageDays < YOUNG_DOMAIN_DAYS)
    f.push({ code: "domain_young", label: `Domain registered ${d.ageDays} days ago`, points: -15 });
  else if (d.ageDays !== null && d.ageDays >= ESTABLISHED_DOMAIN_DAYS)
    f.push({
      code: "domain_established",
      label: `Domain registered ${Math.floor(d.ageDays / 365)} years ago`,
      points: 5,
    });
  if (d.domainListed) f.push({ code: "domain_blocklisted", label: "Domain on a block list", points: -30 });
  if (d.mxListed)
    f.push({ code: "mx_blocklisted", label: "Mail server address on a block list", points: -15 });
  if (d.nullMx)
    f.push({ code: "null_mx", label: "Domain declares it accepts no mail (Null MX)", points: -10 });
  if (d.spf === "absent") f.push({ code: "no_spf", label: "Domain publishes no SPF record", points: -3 });
  if (d.dmarc === "absent")
    f.push({ code: "no_dmarc", label: "Domain publishes no DMARC record", points: -2 });
  if (d.certDaysToExpiry !== null && d.certDaysToExpiry >= 0 && d.certDaysToExpiry < CERT_EXPIRY_WARNING_DAYS)
    f.push({
      code: "cert_expiring",
      label: `TLS certificate expires in ${d.certDaysToExpiry} days`,
      points: -5,
    });
  if (d.didYouMean)
    f.push({
      code: "email_typo",
      label: `Email domain looks mistyped (did you mean ${d.didYouMean}?)`,
      points: -20,
    });
  return f;
}

function validationStatusFor(email: EmailOutcome, site: WebsiteOutcome | null): ValidationVerdict {
  if (email.status === "invalid") return "invalid";
  const emailGood = email.valid && !email.catchAll && !email.disposable;
  // A parked or placeholder website makes the lead risky (decisions §4); so does one never judged.
  const siteGood = !site || (site.status === "active" && site.isParked === false);
  return emailGood && siteGood ? "valid" : "risky";
}

const RATING_MIN = 0;
const RATING_MAX = 100;
/** The most an undeliverable email's lead can rate, whatever the website says. */
const UNDELIVERABLE_CAP = 20;

/**
 * The factors' sum, with a cap and the 0-100 bounds added as factors of their own carrying the
 * points they moved, so that the rating is always the plain sum of the factors it shows.
 */
function settleFactors(factors: readonly RatingFactor[], undeliverable: boolean): RatingFactor[] {
  const settled = [...factors];
  let sum = settled.reduce((total, f) => total + f.points, 0);
  // An undeliverable address is not worth a call, whatever the website says.
  if (undeliverable && sum > UNDELIVERABLE_CAP) {
    settled.push({
      code: "cap_undeliverable",
      label: `Capped at ${UNDELIVERABLE_CAP}: email undeliverable`,
      points: UNDELIVERABLE_CAP - sum,
    });
    sum = UNDELIVERABLE_CAP;
  }
  if (sum > RATING_MAX) {
    settled.push({ code: "rating_ceiling", label: `Capped at ${RATING_MAX}`, points: RATING_MAX - sum });
  } else if (sum < RATING_MIN) {
    settled.push({
      code: "rating_floor",
      label: `Raised to the floor of ${RATING_MIN}`,
      points: RATING_MIN - sum,
    });
  }
  return settled;
}

export function rateLead(
  email: EmailOutcome,
  site: WebsiteOutcome | null,
  domain: DomainOutcome | null = null,
): LeadRating {
  const factors = settleFactors(
    [...emailFactors(email), ...websiteFactors(site), ...(domain ? domainFactors(domain) : [])],
    email.status === "invalid",
  );
  const rating = factors.reduce((sum, f) => sum + f.points, 0);
  return {
    rating,
    recommendation: recommendationFor(rating),
    quality: qualityFor(rating),
    factors,
    validationStatus: validationStatusFor(email, site),
  };
}
