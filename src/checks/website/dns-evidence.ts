// DNS facts for parked detection: the zone's name servers, the host's CNAME chain and the
// `_for-sale` TXT record (draft-davids-forsalereg). Gathered alongside the HTTP attempts.
import type { DnsResolver } from "../../net/dns.js";

export interface DnsEvidence {
  /** The host's addresses as the resolver answered them (A and AAAA). */
  addresses: string[];
  nameServers: string[];
  cnames: string[];
  forSaleTxt: string[];
}

export const NO_DNS_EVIDENCE: DnsEvidence = { addresses: [], nameServers: [], cnames: [], forSaleTxt: [] };

const MAX_CNAME_DEPTH = 4;

/**
 * Waits for the host's address lookup first: the resolver shares that in-flight query with the
 * HTTP attempt, and the check's queries go out in two small waves instead of one burst (bursts of
 * UDP answers overflow socket buffers under load). A host whose addresses cannot be resolved has
 * no site to judge: stopping there keeps DNS failures fast (no NS walk against a silent server).
 */
export async function collectDnsEvidence(
  dns: Pick<DnsResolver, "resolve" | "resolveAddresses">,
  host: string,
): Promise<DnsEvidence> {
  const addresses = await dns.resolveAddresses(host);
  if (!addresses.ok) return NO_DNS_EVIDENCE;
  const [zone, cnames] = await Promise.all([findZone(dns, host), cnameChain(dns, host)]);
  const txt = zone ? await dns.resolve(`_for-sale.${zone.name}`, "TXT") : null;
  return {
    addresses: addresses.records,
    nameServers: zone?.nameServers ?? [],
    cnames,
    forSaleTxt: txt?.ok ? txt.records : [],
  };
}

/** Walks up from the host to the first name with NS records, stopping at two labels. */
async function findZone(
  dns: Pick<DnsResolver, "resolve">,
  host: string,
): Promise<{ name: string; nameServers: string[] } | null> {
  let name = host;
  for (;;) {
    const answer = await dns.resolve(name, "NS");
    if (answer.ok) return { name, nameServers: answer.records };
    if (answer.failure !== "NODATA") return null;
    const labels = name.split(".");
    if (labels.length <= 2) return null;
    name = labels.slice(1).join(".");
  }
}

async function cnameChain(dns: Pick<DnsResolver, "resolve">, host: string): Promise<string[]> {
  const chain: string[] = [];
  let name = host;
  for (let i = 0; i < MAX_CNAME_DEPTH; i++) {
    const answer = await dns.resolve(name, "CNAME");
    const target = answer.ok ? answer.records[0] : undefined;
    if (!target || chain.includes(target)) break;
    chain.push(target);
    name = target;
  }
  return chain;
}

/**
 * Whether the zone answers any name (wildcard DNS, as parking services configure): a random label
 * under the host resolves to one of the host's own addresses. Null when it could not be told.
 */
export async function hasWildcardDns(
  dns: Pick<DnsResolver, "resolveAddresses">,
  host: string,
  addresses: readonly string[],
  label: string,
): Promise<boolean | null> {
  if (addresses.length === 0) return null;
  const answer = await dns.resolveAddresses(`${label}.${host}`);
  if (!answer.ok) return answer.failure === "NXDOMAIN" || answer.failure === "NODATA" ? false : null;
  return answer.records.some((a) => addresses.includes(a));
}
