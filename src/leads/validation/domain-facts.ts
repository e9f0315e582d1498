// A lead's domain facts from the two checks' results: registration and reputation of the email's
// domain (or of the website's, when the email is at a free provider, whose age says nothing about
// the lead), the mail records of the email's domain, and the website's certificate.
import type { EmailVerdict } from "../../checks/email/email.types.js";
import type { WebsiteCheckResult } from "../../checks/website/website.types.js";
import type { DomainStanding } from "../../intel/intel.types.js";
import type { DomainOutcome } from "../lead-rating.js";
import type { LeadDomainFactsView } from "../leads.schemas.js";

/** Null when the checks carried no domain intelligence (DOMAIN_INTEL off, or a syntax refusal). */
export function domainFactsOf(
  email: EmailVerdict,
  website: WebsiteCheckResult | null,
): LeadDomainFactsView | null {
  const intel = email.details.domainIntel;
  const mail = email.details.mailConfig;
  const siteStanding = website?.details.domainIntel ?? null;
  const standing: DomainStanding | null = email.free && siteStanding ? siteStanding : (intel ?? null);
  if (!standing || !mail) return null;
  const age = standing.age;
  const registered = age.status === "registered" ? age : null;
  const certificate = website?.details.certificate ?? null;
  return {
    domain: standing.domain,
    registrableDomain: standing.registrableDomain,
    registration: age.status,
    registrationReason: age.status === "unsupported" || age.status === "unknown" ? age.reason : null,
    registeredAt: registered?.registeredAt ?? null,
    expiresAt: registered?.expiresAt ?? null,
    registrar: registered?.registrar ?? null,
    ageDays: registered?.ageDays ?? null,
    reputation: intel && standing !== intel ? mergedStatus(standing, intel) : standing.reputation.status,
    domainListed: standing.reputation.domainListed,
    mxListed: intel?.reputation.mxListed ?? null,
    listings: [
      ...standing.reputation.answers,
      ...(intel && standing !== intel ? intel.reputation.answers : []),
    ]
      .filter((a) => a.status === "listed")
      .map((a) => ({ zone: a.zone, subject: a.subject, meaning: a.meaning })),
    spf: mail.spf.status,
    spfAll: mail.spf.all,
    dmarc: mail.dmarc.status,
    dmarcPolicy: mail.dmarc.policy,
    nullMx: mail.nullMx,
    starttls: mail.starttls,
    certificate: certificate ? { ...certificate } : null,
  };
}

function mergedStatus(a: DomainStanding, b: DomainStanding): string {
  const statuses = [a.reputation.status, b.reputation.status];
  if (statuses.includes("listed")) return "listed";
  if (statuses.includes("unknown")) return "unknown";
  return statuses.includes("clean") ? "clean" : "off";
}

/** What the rating reads from the facts; a free-mail lead without a website gets no age factor. */
export function domainOutcomeOf(
  facts: LeadDomainFactsView | null,
  email: EmailVerdict,
  website: WebsiteCheckResult | null,
): DomainOutcome | null {
  const didYouMean = email.didYouMean ?? null;
  if (!facts) return didYouMean ? { ...NO_FACTS, didYouMean } : null;
  const aboutProvider = email.free && !website?.details.domainIntel;
  return {
    ageDays: aboutProvider ? null : facts.ageDays,
    domainListed: facts.domainListed,
    mxListed: facts.mxListed,
    spf: aboutProvider ? "unknown" : (facts.spf as DomainOutcome["spf"]),
    dmarc: aboutProvider ? "unknown" : (facts.dmarc as DomainOutcome["dmarc"]),
    nullMx: facts.nullMx,
    certDaysToExpiry: facts.certificate?.daysToExpiry ?? null,
    didYouMean,
  };
}

const NO_FACTS: DomainOutcome = {
  ageDays: null,
  domainListed: null,
  mxListed: null,
  spf: "unknown",
  dmarc: "unknown",
  nullMx: null,
  certDaysToExpiry: null,
  didYouMean: null,
};
