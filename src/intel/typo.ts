// "Did you mean" for mistyped email domains (gmial.com, yahoo.con). @zootools/email-spell-checker
// (a maintained successor of mailcheck.js) finds the closest popular mail domain from our own list;
// TLD slips (.con, .cmo) are corrected against a short list of popular TLDs. Guard against false
// positives: a suggestion is made only for a known look-alike domain, or for a domain that has no
// working mail route; a working company domain that happens to be close to a popular one
// (acme.com vs me.com) never gets one.
import { readFileSync } from "node:fs";
import { run as spellCheck } from "@zootools/email-spell-checker";
import { parse } from "tldts";

const dataFile = (name: string) =>
  readFileSync(new URL(`./data/${name}`, import.meta.url), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));

const POPULAR_MAIL_DOMAINS: readonly string[] = dataFile("popular-mail-domains.txt");
const POPULAR = new Set(POPULAR_MAIL_DOMAINS);
const POPULAR_TLDS: readonly string[] = dataFile("popular-tlds.txt");
const KNOWN_TYPOS = new Map(
  dataFile("known-typo-domains.txt").map((l) => {
    const [typo, meant] = l.split(/\s+/);
    return [typo!.toLowerCase(), meant!.toLowerCase()] as const;
  }),
);

export function isKnownTypoDomain(domain: string): boolean {
  return KNOWN_TYPOS.has(domain.toLowerCase());
}

/**
 * The domain the user probably meant, or null. `hasMailRoute` is true when the typed domain has MX
 * (or address) records that accept mail; only known look-alikes are corrected then.
 */
export function suggestDomain(domain: string, hasMailRoute: boolean): string | null {
  const d = domain.toLowerCase().replace(/\.$/, "");
  const known = KNOWN_TYPOS.get(d);
  if (known) return known;
  if (hasMailRoute || POPULAR.has(d)) return null;
  const popular = closestPopular(d);
  if (popular) return popular;
  const tldFixed = suggestTld(d);
  // "hotmaill.con": the TLD slip hid a popular-domain slip.
  return tldFixed ? (closestPopular(tldFixed) ?? tldFixed) : null;
}

function closestPopular(domain: string): string | null {
  const hit = spellCheck({
    email: `x@${domain}`,
    domains: [...POPULAR_MAIL_DOMAINS],
    topLevelDomains: [],
    secondLevelDomains: [],
    domainThreshold: 2,
  });
  // Same first letter: edits there ("acme" -> "me") make different names, not slips.
  return hit && hit.domain !== domain && hit.domain[0] === domain[0] ? hit.domain : null;
}

function suggestTld(domain: string): string | null {
  const parsed = parse(domain);
  // A suffix the public-suffix list knows is a real TLD, whatever it looks like.
  if (parsed.isIcann || parsed.isIp || !parsed.publicSuffix || !parsed.domainWithoutSuffix) return null;
  const tld = parsed.publicSuffix;
  let best: { tld: string; distance: number } | null = null;
  for (const candidate of POPULAR_TLDS) {
    const distance = editDistance(tld, candidate);
    if (distance <= 1 || (distance === 2 && tld.length >= 3 && sameLetters(tld, candidate))) {
      if (!best || distance < best.distance) best = { tld: candidate, distance };
    }
  }
  if (!best) return null;
  const prefix = parsed.subdomain ? `${parsed.subdomain}.` : "";
  return `${prefix}${parsed.domainWithoutSuffix}.${best.tld}`;
}

const sameLetters = (a: string, b: string) => [...a].sort().join("") === [...b].sort().join("");

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
