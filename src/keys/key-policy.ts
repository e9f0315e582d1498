// What a key may do, and from where: its type, mode, permissions, source addresses, expiry and,
// for publishable keys, the web origins and widget limits. Pure rules, no I/O: the key service
// validates a new key's policy with them and the HTTP layer applies them on every request.
import { BlockList, isIP } from "node:net";
import type { KeyType } from "./key-format.js";

/** The documented permission set (docs/widget.md, "Secret keys"). A key without a list has all. */
export const PERMISSIONS = [
  "checks:write",
  "leads:read",
  "leads:write",
  "batches:write",
  "webhooks:read",
  "webhooks:write",
  "credits:read",
  "connections:write",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export type KeyMode = "live" | "test";

/** Abuse limits of a publishable key; each has a default (WIDGET_* configuration). */
export interface WidgetLimits {
  /** Distinct emails charged per key per UTC day. */
  dailyCap: number;
  /** Requests per minute from one visitor IP address. */
  perIpPerMinute: number;
  /** Requests per minute for one email address. */
  perEmailPerMinute: number;
  /** Distinct emails one IP address may check per UTC day. */
  distinctEmailsPerIpPerDay: number;
}

export interface KeyPolicy {
  type: KeyType;
  mode: KeyMode;
  /** null: every permission (the spec's behaviour). */
  permissions: Permission[] | null;
  /** CIDR blocks; null: any address. */
  allowedIps: string[] | null;
  /** Publishable keys only: exact origins or one `*.` wildcard level. */
  allowedOrigins: string[] | null;
  expiresAt: string | null;
  /** Publishable keys only: limits that differ from the defaults. */
  widgetLimits: Partial<WidgetLimits> | null;
  /** Publishable keys only: "turnstile" or "hcaptcha" when a CAPTCHA token must come with each check. */
  captcha: CaptchaProvider | null;
}

export type CaptchaProvider = "turnstile" | "hcaptcha";

export const FULL_SECRET_POLICY: KeyPolicy = {
  type: "secret",
  mode: "live",
  permissions: null,
  allowedIps: null,
  allowedOrigins: null,
  expiresAt: null,
  widgetLimits: null,
  captcha: null,
};

export const hasPermission = (policy: KeyPolicy, needed: Permission) =>
  policy.permissions === null || policy.permissions.includes(needed);

/** A CIDR block's problem, or null when it is well formed ("203.0.113.0/24", "2001:db8::/32", a bare address). */
export function cidrProblem(cidr: string): string | null {
  const [address, prefix, extra] = cidr.split("/");
  const family = isIP(address ?? "");
  if (!family || extra !== undefined) return "must be an IPv4 or IPv6 address or CIDR block";
  if (prefix === undefined) return null;
  const bits = Number(prefix);
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || bits > max) return `prefix length must be 0-${max}`;
  return null;
}

const blockLists = new Map<string, BlockList>();

/** Whether `ip` (as the socket or trusted proxy reports it) falls in one of the blocks. */
export function ipAllowed(allowedIps: readonly string[] | null, ip: string): boolean {
  if (allowedIps === null) return true;
  const cacheKey = allowedIps.join(",");
  let list = blockLists.get(cacheKey);
  if (!list) {
    list = new BlockList();
    for (const cidr of allowedIps) {
      const [address = "", prefix] = cidr.split("/");
      const type = isIP(address) === 6 ? "ipv6" : "ipv4";
      list.addSubnet(address, prefix === undefined ? (type === "ipv6" ? 128 : 32) : Number(prefix), type);
    }
    if (blockLists.size > 1000) blockLists.clear();
    blockLists.set(cacheKey, list);
  }
  // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1]! : ip;
  const family = isIP(address);
  if (!family) return false;
  return list.check(address, family === 6 ? "ipv6" : "ipv4");
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * An allowed-origin entry's problem, or null. Entries are origins (scheme, host, optional port;
 * no path) over http or https; the host may start with one `*.` wildcard level above a domain of at
 * least two labels. Local development origins (localhost, 127.0.0.1, [::1]) only on test-mode keys.
 */
export function originProblem(entry: string, mode: KeyMode): string | null {
  const m = /^(https?):\/\/(\*\.)?([a-z0-9.-]+|\[[0-9a-f:]+\])(:\d{1,5})?$/i.exec(entry);
  if (!m) return "must be an origin such as https://www.example.com or https://*.example.com (no path)";
  const host = m[3]!.toLowerCase();
  if (m[2] && (host.split(".").length < 2 || host.startsWith(".")))
    return "a wildcard needs a domain of at least two labels under it (https://*.example.com)";
  if (host.split(".").some((label) => label === "")) return "has an empty label";
  if (LOCAL_HOSTS.has(host) && !m[2] && mode !== "test")
    return "local origins (localhost) are allowed on test-mode keys only";
  return null;
}

/** Whether a request's origin ("https://shop.example.com", lower case, no path) is one of the allowed. */
export function originAllowed(allowed: readonly string[] | null, origin: string): boolean {
  if (!allowed) return false;
  const wanted = /^(https?):\/\/([^/:]+|\[[^\]]+\])(:\d+)?$/i.exec(origin);
  if (!wanted) return false;
  const [, scheme, host, port = ""] = wanted;
  for (const entry of allowed) {
    const e = entry.toLowerCase();
    if (e === origin.toLowerCase()) return true;
    const w = /^(https?):\/\/\*\.([^/:]+)(:\d+)?$/.exec(e);
    if (!w || w[1] !== scheme!.toLowerCase() || (w[3] ?? "") !== port) continue;
    const suffix = `.${w[2]}`;
    const lower = host!.toLowerCase();
    // Exactly one label above the wildcard's domain.
    if (
      lower.endsWith(suffix) &&
      !lower.slice(0, -suffix.length).includes(".") &&
      lower.length > suffix.length
    )
      return true;
  }
  return false;
}

/** The origin a header names: Origin as is, or the scheme, host and port of a Referer URL. */
export function requestOrigin(origin: string | undefined, referer: string | undefined): string | null {
  if (origin && origin !== "null") return origin.toLowerCase();
  if (!referer) return null;
  try {
    const url = new URL(referer);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin.toLowerCase() : null;
  } catch {
    return null;
  }
}
