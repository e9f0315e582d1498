// Where mail for a domain goes: MX hosts by preference (RFC 5321 §5.1), the implicit MX (the
// domain's own A/AAAA) when there is none, and Null MX (RFC 7505) as "accepts no mail".
import { isIP } from "node:net";
import type { DnsFailure, DnsResolver } from "./dns.js";

export interface MailHost {
  host: string;
  priority: number;
}

export type MailRoute =
  | { kind: "mx"; hosts: MailHost[] }
  /** No MX records: the domain itself receives mail (RFC 5321 §5.1). */
  | { kind: "implicit"; hosts: MailHost[] }
  | { kind: "null_mx" }
  | { kind: "nxdomain" }
  /** Neither MX nor address records. */
  | { kind: "no_mail_host" }
  | { kind: "dns_error"; failure: DnsFailure; message: string };

export type MxDns = Pick<DnsResolver, "resolve" | "resolveAddresses">;

export async function resolveMailRoute(dns: MxDns, domain: string): Promise<MailRoute> {
  const mx = await dns.resolve(domain, "MX");
  if (mx.ok) {
    const records = mx.records.map((r) => ({ host: r.exchange.replace(/\.$/, ""), priority: r.priority }));
    if (records.length === 1 && records[0]!.host === "" && records[0]!.priority === 0)
      return { kind: "null_mx" };
    const hosts = records.filter((r) => r.host !== "").sort((a, b) => a.priority - b.priority);
    if (hosts.length === 0) return { kind: "null_mx" };
    return { kind: "mx", hosts };
  }
  if (mx.failure === "NXDOMAIN") return { kind: "nxdomain" };
  if (mx.failure !== "NODATA") return { kind: "dns_error", failure: mx.failure, message: mx.message };
  const addresses = await dns.resolveAddresses(domain);
  if (addresses.ok) return { kind: "implicit", hosts: [{ host: domain, priority: 0 }] };
  if (addresses.failure === "NXDOMAIN") return { kind: "nxdomain" };
  if (addresses.failure === "NODATA") return { kind: "no_mail_host" };
  return { kind: "dns_error", failure: addresses.failure, message: addresses.message };
}

/** Addresses to connect to for one MX host; an IP literal (seen in misconfigured zones) is used as is. */
export async function resolveHostAddresses(
  dns: MxDns,
  host: string,
): Promise<{ ok: true; addresses: string[] } | { ok: false; message: string }> {
  if (isIP(host)) return { ok: true, addresses: [host] };
  const answer = await dns.resolveAddresses(host);
  if (answer.ok) return { ok: true, addresses: answer.records };
  return { ok: false, message: answer.message };
}
