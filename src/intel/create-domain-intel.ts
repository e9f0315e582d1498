// Builds the domain-intelligence engine from configuration: the RDAP bootstrap (vendored snapshot,
// a file, or a URL fetched once at start-up through the guarded client), the block-list zones and
// the shared resolver.
import type { Config } from "../config/config.js";
import type { Module } from "../jobs/catalog.js";
import type { Clock } from "../lib/clock.js";
import type { DnsResolver } from "../net/dns.js";
import { HttpClient } from "../net/http-client.js";
import { DnsblChecker } from "./dnsbl.js";
import { DomainIntelEngine } from "./domain-intel.js";
import { loadBootstrapFile, parseBootstrap, RdapBootstrap } from "./rdap-bootstrap.js";

export interface IntelLogger {
  warn(obj: Record<string, unknown>, message: string): void;
}

export async function createDomainIntel(deps: {
  config: Readonly<Config>;
  dns: DnsResolver;
  clock: Clock;
  logger: IntelLogger;
  /** Extra trusted CA for RDAP servers (tests). */
  ca?: string | Buffer;
}): Promise<DomainIntelEngine | undefined> {
  const { config, logger } = deps;
  if (!config.intel.enabled) return undefined;
  const http = new HttpClient({
    dns: deps.dns,
    allowPrivateTargets: config.allowPrivateTargets,
    userAgent: "leadcheck/0.1 (+rdap)",
    ...(deps.ca ? { ca: deps.ca } : {}),
  });
  const bootstrap = await loadBootstrap(config.intel.rdapBootstrapUrl, http, logger);
  const dnsbl = new DnsblChecker({
    dns: deps.dns,
    domainZones: config.intel.dnsblDomainZones,
    ipZones: config.intel.dnsblIpZones,
    warn: (zone, message) => logger.warn({ zone }, message),
  });
  return new DomainIntelEngine({
    dns: deps.dns,
    rdap: { http, bootstrap, timeoutMs: config.intel.rdapTimeoutMs },
    dnsbl,
    clock: deps.clock,
    budgetMs: config.intel.budgetMs,
  });
}

/** RDAP_BOOTSTRAP_URL: an http(s) URL or a file path; on any failure the vendored snapshot is used. */
export async function loadBootstrap(
  source: string | undefined,
  http: Pick<HttpClient, "request">,
  logger: IntelLogger,
): Promise<RdapBootstrap> {
  if (!source) return loadBootstrapFile();
  try {
    if (!/^https?:\/\//i.test(source)) return loadBootstrapFile(source);
    const res = await http.request({
      url: new URL(source),
      timeoutMs: 10_000,
      maxBodyBytes: 4 * 1024 * 1024,
      headers: { accept: "application/json" },
    });
    if (!res.ok) throw new Error(res.message);
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    return new RdapBootstrap(parseBootstrap(res.body.toString("utf8")));
  } catch (error) {
    const fallback = loadBootstrapFile();
    logger.warn(
      { source, err: error instanceof Error ? error.message : String(error) },
      `RDAP_BOOTSTRAP_URL could not be loaded; using the vendored snapshot published ${fallback.publication}`,
    );
    return fallback;
  }
}

/** The intel module: the engine, or undefined when DOMAIN_INTEL is off (checks then run without). */
export async function createIntel(
  deps: Parameters<typeof createDomainIntel>[0],
): Promise<Module<{ domainIntel: DomainIntelEngine | undefined }>> {
  return { services: { domainIntel: await createDomainIntel(deps) }, jobs: [] };
}
