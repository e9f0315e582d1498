// Reputation from DNS block lists: `<domain>.<zone>` for domain lists (Spamhaus DBL, SURBL,
// URIBL) and `<reversed IPv4>.<zone>` for address lists (Spamhaus ZEN, ...), as A queries through
// the shared resolver, which caches each answer for its TTL. Answers are read per zone: the same
// 127.0.0.1 is "listed" in one list and "query refused" in another, and Spamhaus answers
// 127.255.255.252/254/255 when it refuses a query (typically one sent through a public resolver).
// A refusal is `unknown`, never `listed`, and is logged once per zone. A zone we have no table for
// is read by RFC 5782, except 127.255.255.0/24, the error range, which is `unknown` there too.
import { isIP } from "node:net";
import type { DnsResolver } from "../net/dns.js";
import type { ListingStatus, Reputation, ZoneAnswer } from "./intel.types.js";

export interface DnsblOptions {
  dns: Pick<DnsResolver, "resolve">;
  domainZones: readonly string[];
  ipZones: readonly string[];
  /** Told once per zone that refuses our queries. */
  warn: (zone: string, message: string) => void;
}

interface Reading {
  status: ListingStatus;
  meaning: string;
}

/** How a family of zones reads its 127.x answers. */
interface ZoneFamily {
  matches: (zone: string) => boolean;
  read: (code: string) => Reading;
}

const refused = (meaning: string): Reading => ({ status: "unknown", meaning });
const listed = (meaning: string): Reading => ({ status: "listed", meaning });

const SPAMHAUS_REFUSALS: Record<string, string> = {
  "127.255.255.252": "query refused: typing error in the zone name",
  "127.255.255.254": "query refused: sent through a public or open resolver",
  "127.255.255.255": "query refused: too many queries (excessive use)",
};

const SPAMHAUS_DBL: Record<string, string> = {
  "127.0.1.2": "spam domain",
  "127.0.1.4": "phishing domain",
  "127.0.1.5": "malware domain",
  "127.0.1.6": "botnet C&C domain",
  "127.0.1.102": "abused legit spam",
  "127.0.1.103": "abused spammed redirector",
  "127.0.1.104": "abused legit phishing",
  "127.0.1.105": "abused legit malware",
  "127.0.1.106": "abused legit botnet C&C",
};

const SPAMHAUS_ZEN: Record<string, string> = {
  "127.0.0.2": "SBL: spam source",
  "127.0.0.3": "SBL CSS: snowshoe spam",
  "127.0.0.4": "XBL: exploited host",
  "127.0.0.9": "SBL DROP: hijacked network",
  "127.0.0.10": "PBL: end-user address (ISP policy)",
  "127.0.0.11": "PBL: end-user address (Spamhaus)",
};

const FAMILIES: ZoneFamily[] = [
  {
    // Public mirrors (*.spamhaus.org) and Data Query Service zones (<key>.<list>.dq.spamhaus.net).
    matches: (z) => /(^|\.)spamhaus\.(org|net)$/.test(z),
    read: (code) => {
      if (SPAMHAUS_REFUSALS[code]) return refused(SPAMHAUS_REFUSALS[code]);
      if (code === "127.0.1.255") return refused("query refused: not a domain name the DBL accepts");
      const meaning = SPAMHAUS_DBL[code] ?? SPAMHAUS_ZEN[code];
      if (meaning) return listed(meaning);
      return /^127\.0\.[01]\.\d+$/.test(code) ? listed("listed") : refused(`unexpected answer ${code}`);
    },
  },
  {
    // SURBL answers 127.0.0.1 to blocked (public-resolver or over-quota) clients; other bits are lists.
    matches: (z) => /(^|\.)surbl\.org$/.test(z),
    read: (code) =>
      code === "127.0.0.1"
        ? refused("query refused: access blocked by SURBL")
        : /^127\.0\.0\.\d+$/.test(code)
          ? listed(`listed (SURBL mask ${code.split(".")[3]})`)
          : refused(`unexpected answer ${code}`),
  },
  {
    // URIBL: 127.0.0.1 means the query was refused; 2/4/8 are the black, grey and red lists.
    matches: (z) => /(^|\.)uribl\.com$/.test(z),
    read: (code) =>
      code === "127.0.0.1"
        ? refused("query refused: access blocked by URIBL")
        : /^127\.0\.0\.\d+$/.test(code)
          ? listed(`listed (URIBL mask ${code.split(".")[3]})`)
          : refused(`unexpected answer ${code}`),
  },
];

/**
 * Any other zone: the common RFC 5782 convention (127.0.0.2 and up list, 127.0.0.1 is a test).
 * 127.255.255.0/24 is where the large lists put their errors (Spamhaus 127.255.255.252/254/255:
 * refused, public resolver, excess volume), so a zone we do not know answering there has told us
 * nothing about the name.
 */
const GENERIC: ZoneFamily = {
  matches: () => true,
  read: (code) => {
    if (/^127\.255\.255\.\d+$/.test(code))
      return refused(`query refused or failed: ${code} is in 127.255.255.0/24, the lists' error range`);
    return /^127\.\d+\.\d+\.\d+$/.test(code) && code !== "127.0.0.1"
      ? listed(`listed (${code})`)
      : refused(`unexpected answer ${code}`);
  },
};

export function readZoneCodes(zone: string, codes: readonly string[]): Reading {
  const family = FAMILIES.find((f) => f.matches(zone.toLowerCase())) ?? GENERIC;
  const readings = codes.map((c) => family.read(c));
  // A listing wins over a refusal in the same answer; the first of each kind explains it.
  return (
    readings.find((r) => r.status === "listed") ??
    readings.find((r) => r.status === "unknown") ?? { status: "not_listed", meaning: "" }
  );
}

export class DnsblChecker {
  private readonly warned = new Set<string>();

  constructor(private readonly options: DnsblOptions) {}

  get enabled(): boolean {
    return this.options.domainZones.length > 0 || this.options.ipZones.length > 0;
  }

  /** Looks up the registrable domain in the domain zones and each IPv4 address in the IP zones. */
  async check(domain: string | null, addresses: readonly string[]): Promise<Reputation> {
    if (!this.enabled) return { status: "off", domainListed: null, mxListed: null, answers: [] };
    const v4 = [...new Set(addresses.filter((a) => isIP(a) === 4))];
    const jobs: Promise<ZoneAnswer>[] = [];
    if (domain) for (const zone of this.options.domainZones) jobs.push(this.query(zone, domain, "domain"));
    for (const zone of this.options.ipZones)
      for (const address of v4) jobs.push(this.query(zone, address, "ip"));
    const answers = await Promise.all(jobs);
    const domainAnswers = answers.filter((a) => a.kind === "domain");
    const ipAnswers = answers.filter((a) => a.kind === "ip");
    const domainListed = summarise(domainAnswers);
    const mxListed = summarise(ipAnswers);
    const status = answers.some((a) => a.status === "listed")
      ? "listed"
      : answers.length > 0 && answers.every((a) => a.status === "not_listed")
        ? "clean"
        : "unknown";
    return { status, domainListed, mxListed, answers };
  }

  private async query(zone: string, subject: string, kind: "domain" | "ip"): Promise<ZoneAnswer> {
    const name = kind === "ip" ? `${subject.split(".").reverse().join(".")}.${zone}` : `${subject}.${zone}`;
    const answer = await this.options.dns.resolve(name, "A");
    if (!answer.ok) {
      // NXDOMAIN is the zone's "not listed"; NODATA (a name with other records only) reads the same.
      if (answer.failure === "NXDOMAIN" || answer.failure === "NODATA")
        return { zone, subject, kind, status: "not_listed", codes: [], meaning: null };
      return {
        zone,
        subject,
        kind,
        status: "unknown",
        codes: [],
        meaning: `lookup failed: ${answer.failure}`,
      };
    }
    const reading = readZoneCodes(zone, answer.records);
    if (
      reading.status === "unknown" &&
      reading.meaning.startsWith("query refused") &&
      !this.warned.has(zone)
    ) {
      this.warned.add(zone);
      this.options.warn(
        zone,
        `DNSBL zone ${zone} refused our query (${answer.records.join(", ")}: ${reading.meaning}); its ` +
          "answers are reported as unknown. Use a local recursive resolver (DNS_SERVERS) or the list's " +
          "paid query service, or remove the zone from DNSBL_DOMAIN_ZONES / DNSBL_IP_ZONES.",
      );
    }
    return {
      zone,
      subject,
      kind,
      status: reading.status,
      codes: answer.records,
      meaning: reading.status === "not_listed" ? null : reading.meaning,
    };
  }
}

function summarise(answers: ZoneAnswer[]): boolean | null {
  if (answers.some((a) => a.status === "listed")) return true;
  if (answers.length > 0 && answers.every((a) => a.status === "not_listed")) return false;
  return null;
}
