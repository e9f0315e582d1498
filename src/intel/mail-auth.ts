// The mail-authentication records a domain publishes: SPF (RFC 7208: the TXT record starting
// "v=spf1", read for its final `all` mechanism) and DMARC (RFC 7489: TXT at _dmarc.<domain>, else
// at the organisational domain, read for `p=`). Only the records are read; nothing is evaluated.
import type { DnsResolver } from "../net/dns.js";
import type { DmarcRecord, SpfAll, SpfRecord } from "./intel.types.js";

type Dns = Pick<DnsResolver, "resolve">;

export async function readSpf(dns: Dns, domain: string): Promise<SpfRecord> {
  const txt = await dns.resolve(domain, "TXT");
  if (!txt.ok) {
    if (txt.failure === "NXDOMAIN" || txt.failure === "NODATA")
      return { status: "absent", all: null, record: null };
    return { status: "unknown", all: null, record: null };
  }
  const record = txt.records.find((r) => /^v=spf1(\s|$)/i.test(r.trim()));
  if (!record) return { status: "absent", all: null, record: null };
  return { status: "present", all: spfAll(record), record };
}

/** The qualifier of the `all` mechanism ("+all" when written bare), or null without one. */
export function spfAll(record: string): SpfAll | null {
  for (const term of record.trim().split(/\s+/).reverse()) {
    const m = /^([+\-~?]?)all$/i.exec(term);
    if (m) return `${(m[1] || "+") as "+" | "-" | "~" | "?"}all`;
  }
  return null;
}

export async function readDmarc(
  dns: Dns,
  domain: string,
  organisational: string | null,
): Promise<DmarcRecord> {
  const own = await dmarcAt(dns, domain);
  if (own.status !== "absent" || !organisational || organisational === domain) return own;
  return dmarcAt(dns, organisational);
}

async function dmarcAt(dns: Dns, domain: string): Promise<DmarcRecord> {
  const txt = await dns.resolve(`_dmarc.${domain}`, "TXT");
  if (!txt.ok) {
    const status = txt.failure === "NXDOMAIN" || txt.failure === "NODATA" ? "absent" : "unknown";
    return { status, policy: null, foundAt: null, record: null };
  }
  const record = txt.records.find((r) => /^v=DMARC1\s*(;|$)/i.test(r.trim()));
  if (!record) return { status: "absent", policy: null, foundAt: null, record: null };
  const p = /(?:^|;)\s*p\s*=\s*(none|quarantine|reject)\s*(?:;|$)/i.exec(record);
  return {
    status: "present",
    policy: p ? (p[1]!.toLowerCase() as DmarcRecord["policy"]) : null,
    foundAt: domain,
    record,
  };
}
