// DNSBL_DOMAIN_ZONES / DNSBL_IP_ZONES: the block lists domain intelligence asks (src/intel/dnsbl.ts).

export const DEFAULT_DNSBL_DOMAIN_ZONES: readonly string[] = ["dbl.spamhaus.org"];
export const DEFAULT_DNSBL_IP_ZONES: readonly string[] = ["zen.spamhaus.org"];

/** "none", "off" or an empty value turn a zone list off. */
export function parseZones(raw: string | undefined, fallback: readonly string[]): string[] {
  if (raw === undefined) return [...fallback];
  const trimmed = raw.trim().toLowerCase();
  if (trimmed === "" || trimmed === "none" || trimmed === "off") return [];
  return trimmed
    .split(",")
    .map((z) => z.trim().replace(/^\.+|\.+$/g, ""))
    .filter(Boolean);
}
