// Public shapes of domain intelligence: registration (RDAP), reputation (DNS block lists) and the
// mail-authentication records of a domain. Every fact that could not be settled is `unknown` with
// a reason, never false.

/** Registration of the registrable domain, read from its registry's RDAP server (RFC 9083). */
export type DomainAge =
  | {
      status: "registered";
      /** The `registration` event; null when the registry does not publish it. */
      registeredAt: string | null;
      /** The `expiration` event. */
      expiresAt: string | null;
      /** The entity with the `registrar` role (its vCard `fn`). */
      registrar: string | null;
      /** Whole days from registeredAt to the lookup. */
      ageDays: number | null;
      rdapServer: string;
    }
  /** The registry answered 404: nobody holds the name. */
  | { status: "not_registered"; rdapServer: string }
  /** No RDAP service for the TLD in the bootstrap file, or no registrable domain at all (an IP,
   *  a bare public suffix). */
  | { status: "unsupported"; reason: "no_rdap_server" | "no_registrable_domain" }
  | { status: "unknown"; reason: RdapFailure; message: string };

export type RdapFailure = "timeout" | "http_error" | "malformed_response" | "network_error" | "disabled";

export type ListingStatus = "listed" | "not_listed" | "unknown";

/** One block-list query: `<domain>.<zone>` or `<reversed ip>.<zone>`. */
export interface ZoneAnswer {
  zone: string;
  /** The registrable domain or the MX address that was looked up. */
  subject: string;
  kind: "domain" | "ip";
  status: ListingStatus;
  /** The 127.x answers received. */
  codes: string[];
  /** What the zone says the codes mean ("spam domain", "query refused", ...); null when not listed. */
  meaning: string | null;
}

export interface Reputation {
  /** listed: some zone lists the domain or an MX address; clean: every zone answered "not listed";
   *  unknown: some zone could not answer and none listed; off: no zones configured. */
  status: "listed" | "clean" | "unknown" | "off";
  domainListed: boolean | null;
  mxListed: boolean | null;
  answers: ZoneAnswer[];
}

export type SpfAll = "+all" | "-all" | "~all" | "?all";

export interface SpfRecord {
  status: "present" | "absent" | "unknown";
  /** The record's final `all` mechanism with its qualifier; null without one. */
  all: SpfAll | null;
  record: string | null;
}

export interface DmarcRecord {
  status: "present" | "absent" | "unknown";
  policy: "none" | "quarantine" | "reject" | null;
  /** Where the record was found: the domain itself or its organisational domain (RFC 7489 §6.6.3). */
  foundAt: string | null;
  record: string | null;
}

/** Registration and domain-list reputation of a domain (what a website check reports). */
export interface DomainStanding {
  /** The domain asked about (ASCII, lower case). */
  domain: string;
  /** Its registrable domain (public-suffix list via tldts); null for IPs and bare suffixes. */
  registrableDomain: string | null;
  age: DomainAge;
  reputation: Reputation;
}

/** Standing plus the mail configuration (what an email check reports). The reputation includes
 *  the MX addresses in the IP lists. */
export interface DomainIntel extends DomainStanding {
  spf: SpfRecord;
  dmarc: DmarcRecord;
  /** RFC 7505: the domain declares it accepts no mail. Null when the MX lookup failed. */
  nullMx: boolean | null;
}

/** What the email check, the website check and lead validation depend on. Never throws. */
export interface DomainIntelProvider {
  /** Facts about a domain, each bounded by `budgetMs` (facts still missing then are `unknown`,
   *  reason timeout, while the lookup finishes in the background and fills the cache). */
  lookup(domain: string, options?: { budgetMs?: number }): Promise<DomainIntel>;
  /** Registration and domain-list reputation only (no mail records, no IP lists). */
  standing(domain: string, options?: { budgetMs?: number }): Promise<DomainStanding>;
}
