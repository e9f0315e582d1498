// Domain registration by RDAP (RFC 9082 query, RFC 9083 answer): GET <base>domain/<name> through
// the guarded HTTP client, following a few redirects hop by hop. A 404 means "not registered"; a
// TLD without an RDAP service is "unsupported"; anything else that goes wrong is "unknown" with
// its reason. Nothing throws.
import type { HttpClient } from "../net/http-client.js";
import type { DomainAge, RdapFailure } from "./intel.types.js";
import type { RdapBootstrap } from "./rdap-bootstrap.js";

export interface RdapOptions {
  http: Pick<HttpClient, "request">;
  bootstrap: RdapBootstrap;
  timeoutMs: number;
  now: () => number;
  /** Largest answer read; registries answer in a few KiB. */
  maxBodyBytes?: number;
}

const MAX_REDIRECTS = 3;
const DAY_MS = 86_400_000;

interface RdapEvent {
  eventAction?: unknown;
  eventDate?: unknown;
}

interface RdapEntity {
  roles?: unknown;
  vcardArray?: unknown;
  entities?: unknown;
}

export async function lookupRegistration(options: RdapOptions, domain: string): Promise<DomainAge> {
  const servers = options.bootstrap.serversFor(domain);
  if (servers.length === 0) return { status: "unsupported", reason: "no_rdap_server" };
  const base = servers[0]!;
  const started = options.now();
  let url: URL;
  try {
    url = new URL(`domain/${encodeURIComponent(domain)}`, base);
  } catch {
    return unknown("malformed_response", `bootstrap base URL ${base} is not a URL`);
  }
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const left = options.timeoutMs - (options.now() - started);
    if (left <= 0) return unknown("timeout", `no RDAP answer within ${options.timeoutMs} ms`);
    const res = await options.http.request({
      url,
      timeoutMs: left,
      headers: { accept: "application/rdap+json, application/json;q=0.8" },
      maxBodyBytes: options.maxBodyBytes ?? 256 * 1024,
    });
    if (!res.ok) {
      const reason: RdapFailure = res.failure === "timeout" ? "timeout" : "network_error";
      return unknown(reason, `${url.origin}: ${res.message}`);
    }
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && location) {
      try {
        url = new URL(location, url);
      } catch {
        return unknown("http_error", `RDAP redirect to an invalid URL`);
      }
      continue;
    }
    if (res.status === 404) return { status: "not_registered", rdapServer: base };
    if (res.status !== 200) return unknown("http_error", `RDAP server answered HTTP ${res.status}`);
    if (res.bodyTruncated)
      return unknown("malformed_response", `RDAP answer cut short (${res.bodyTruncated})`);
    return readDomain(res.body.toString("utf8"), base, options.now());
  }
  return unknown("http_error", `more than ${MAX_REDIRECTS} RDAP redirects`);
}

function readDomain(text: string, base: string, now: number): DomainAge {
  let json: { objectClassName?: unknown; events?: unknown; entities?: unknown };
  try {
    json = JSON.parse(text);
  } catch {
    return unknown("malformed_response", "RDAP answer is not JSON");
  }
  if (typeof json !== "object" || json === null || json.objectClassName !== "domain")
    return unknown("malformed_response", "RDAP answer is not a domain object (objectClassName)");
  const events = Array.isArray(json.events) ? (json.events as RdapEvent[]) : [];
  const registeredAt = eventDate(events, "registration");
  const expiresAt = eventDate(events, "expiration");
  const ageDays =
    registeredAt === null ? null : Math.max(0, Math.floor((now - Date.parse(registeredAt)) / DAY_MS));
  return {
    status: "registered",
    registeredAt,
    expiresAt,
    registrar: registrarName(json.entities),
    ageDays,
    rdapServer: base,
  };
}

function eventDate(events: RdapEvent[], action: string): string | null {
  const hit = events.find((e) => e && e.eventAction === action && typeof e.eventDate === "string");
  if (!hit) return null;
  const at = Date.parse(hit.eventDate as string);
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

/** The vCard `fn` of the entity with the registrar role (RFC 9083 §5.1, jCard RFC 7095). */
function registrarName(entities: unknown): string | null {
  if (!Array.isArray(entities)) return null;
  for (const entity of entities as RdapEntity[]) {
    if (!entity || !Array.isArray(entity.roles) || !entity.roles.includes("registrar")) continue;
    const card = Array.isArray(entity.vcardArray) ? entity.vcardArray[1] : undefined;
    if (!Array.isArray(card)) return null;
    const fn = card.find((p: unknown) => Array.isArray(p) && p[0] === "fn");
    return Array.isArray(fn) && typeof fn[3] === "string" && fn[3].trim() !== "" ? fn[3].trim() : null;
  }
  return null;
}

function unknown(reason: RdapFailure, message: string): DomainAge {
  return { status: "unknown", reason, message };
}
