// The key rules of docs/widget.md as the form needs them before sending: the same messages the API
// gives (src/keys/key-policy.ts), so a mistake is named next to its field. The API still decides.
import type { ApiKeyList } from "../../sdk/src/api-types.js";

export type Permission = NonNullable<ApiKeyList["keys"][number]["permissions"]>[number];
export type KeyMode = ApiKeyList["keys"][number]["mode"];

/** Every documented permission with what it allows; a Record, so a new permission fails the build. */
export const PERMISSION_LABELS: Record<Permission, string> = {
  "checks:write": "Run email and website checks",
  "leads:read": "Read and export leads",
  "leads:write": "Create, import, edit and validate leads",
  "batches:write": "Start batch validations",
  "webhooks:read": "Read webhooks and deliveries",
  "webhooks:write": "Create and change webhooks",
  "credits:read": "Read the credit balance and usage",
  "connections:write": "Manage Google Sheets and HubSpot connections",
  "audit:read": "Read, verify and export the audit log",
  "data:admin": "Erase leads, set retention, export the account",
};
export const PERMISSIONS = Object.keys(PERMISSION_LABELS) as Permission[];

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** An allowed-origin entry's problem, or null (the API's originProblem). */
export function originProblem(entry: string, mode: KeyMode): string | null {
  const m = /^(https?):\/\/(\*\.)?([a-z0-9.-]+|\[[0-9a-f:]+\])(:\d{1,5})?$/i.exec(entry);
  if (!m) return "must be an origin such as https://www.example.com or https://*.example.com (no path)";
  const host = (m[3] ?? "").toLowerCase();
  if (m[2] && (host.split(".").length < 2 || host.startsWith(".")))
    return "a wildcard needs a domain of at least two labels under it (https://*.example.com)";
  if (host.split(".").some((label) => label === "")) return "has an empty label";
  if (LOCAL_HOSTS.has(host) && !m[2] && mode !== "test")
    return "local origins (localhost) are allowed on test-mode keys only";
  return null;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function ipFamily(address: string): 4 | 6 | 0 {
  if (IPV4.test(address)) return 4;
  if (!/^[0-9a-f:.]+$/i.test(address) || !address.includes(":")) return 0;
  // A browser parses IPv6 literals exactly as the server does: as a URL host.
  try {
    new URL(`http://[${address}]/`);
    return 6;
  } catch {
    return 0;
  }
}

/** A CIDR block's problem, or null (the API's cidrProblem). */
export function cidrProblem(cidr: string): string | null {
  const [address, prefix, extra] = cidr.split("/");
  const family = ipFamily(address ?? "");
  if (!family || extra !== undefined) return "must be an IPv4 or IPv6 address or CIDR block";
  if (prefix === undefined) return null;
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `prefix length must be 0-${max}`;
  return null;
}

/** The one script tag a signup form needs. */
export const widgetSnippet = (apiOrigin: string, publishableKey: string): string =>
  `<script src="${apiOrigin}/widget.js" data-key="${publishableKey}" async></script>`;
