// A fake registry RDAP service (RFC 9082 queries, RFC 9083 answers) on the local HTTP and HTTPS
// test servers: GET /rdap/domain/<name> answers per domain as scripted: registered (with events
// and a registrar entity), unregistered (404 with an RFC 9083 error body), slow, or malformed.
import type { IncomingMessage } from "node:http";
import { type SiteBehavior, startSites, type TestSites } from "./http-servers.js";
import type { KeyPair } from "./test-ca.js";

export type RdapAnswer =
  | { kind: "registered"; registeredAt?: string; expiresAt?: string; registrar?: string }
  | { kind: "unregistered" }
  | { kind: "slow"; delayMs: number }
  | { kind: "malformed"; body: string; contentType?: string }
  | { kind: "status"; status: number };

export interface FakeRdap {
  sites: TestSites;
  /** Host name the servers answer for (point the test DNS at 127.0.0.1 for it). */
  host: string;
  httpsBase: string;
  httpBase: string;
  /** Domains asked about, in order (both schemes). */
  queries: string[];
  set(domain: string, answer: RdapAnswer): void;
  /** Serves an IANA-format bootstrap file naming this server for the TLDs, at /dns.json. */
  serveBootstrap(tlds: string[], scheme?: "https" | "http"): string;
  close(): Promise<void>;
}

const JSON_TYPE = { "content-type": "application/rdap+json" };

/** An RFC 9083 domain object as registries publish it. */
function rdapDomainObject(domain: string, a: Extract<RdapAnswer, { kind: "registered" }>) {
  const events = [
    ...(a.registeredAt ? [{ eventAction: "registration", eventDate: a.registeredAt }] : []),
    ...(a.expiresAt ? [{ eventAction: "expiration", eventDate: a.expiresAt }] : []),
    { eventAction: "last update of RDAP database", eventDate: "2026-11-01T00:00:00Z" },
  ];
  return {
    rdapConformance: ["rdap_level_0", "icann_rdap_response_profile_0"],
    objectClassName: "domain",
    handle: `${domain.toUpperCase().replace(/\./g, "_")}-TEST`,
    ldhName: domain.toUpperCase(),
    status: ["client transfer prohibited"],
    events,
    entities: a.registrar
      ? [
          {
            objectClassName: "entity",
            handle: "9999",
            roles: ["registrar"],
            publicIds: [{ type: "IANA Registrar ID", identifier: "9999" }],
            vcardArray: [
              "vcard",
              [
                ["version", {}, "text", "4.0"],
                ["fn", {}, "text", a.registrar],
              ],
            ],
          },
        ]
      : [],
    nameservers: [{ objectClassName: "nameserver", ldhName: "NS1.EXAMPLE.TEST" }],
    secureDNS: { delegationSigned: false },
  };
}

export async function startRdapServer(
  answers: Record<string, RdapAnswer>,
  tls: KeyPair,
  host = "rdap.test",
  /** Added to every answer (a registry's latency, for benchmarks). */
  latencyMs = 0,
): Promise<FakeRdap> {
  const table = new Map(Object.entries(answers).map(([d, a]) => [d.toLowerCase(), a]));
  const queries: string[] = [];
  let bootstrap: unknown = null;
  const site = (req: IncomingMessage): SiteBehavior => {
    const behavior = answer(req);
    return latencyMs > 0 && !behavior.delayMs ? { ...behavior, delayMs: latencyMs } : behavior;
  };
  const answer = (req: IncomingMessage): SiteBehavior => {
    if (req.url === "/dns.json" && bootstrap)
      return { headers: { "content-type": "application/json" }, body: JSON.stringify(bootstrap) };
    const m = /^\/rdap\/domain\/([^/?]+)$/.exec(req.url ?? "");
    if (!m) return { status: 400, headers: JSON_TYPE, body: JSON.stringify({ errorCode: 400 }) };
    const domain = decodeURIComponent(m[1]!).toLowerCase();
    queries.push(domain);
    const scripted = table.get(domain) ?? { kind: "unregistered" };
    switch (scripted.kind) {
      case "registered":
        return { headers: JSON_TYPE, body: JSON.stringify(rdapDomainObject(domain, scripted)) };
      case "unregistered":
        return {
          status: 404,
          headers: JSON_TYPE,
          body: JSON.stringify({ errorCode: 404, title: "Not Found", description: ["Object not found"] }),
        };
      case "slow":
        return { delayMs: scripted.delayMs, headers: JSON_TYPE, body: "{}" };
      case "malformed":
        return {
          headers: { "content-type": scripted.contentType ?? "application/rdap+json" },
          body: scripted.body,
        };
      case "status":
        return {
          status: scripted.status,
          headers: JSON_TYPE,
          body: JSON.stringify({ errorCode: scripted.status }),
        };
    }
  };
  const sites = await startSites({ [host]: site }, { fallback: tls });
  return {
    sites,
    host,
    httpsBase: `https://${host}:${sites.httpsPort}/rdap/`,
    httpBase: `http://${host}:${sites.httpPort}/rdap/`,
    queries,
    set: (domain, answer) => table.set(domain.toLowerCase(), answer),
    serveBootstrap(tlds, scheme = "https") {
      const base =
        scheme === "https"
          ? `https://${host}:${sites.httpsPort}/rdap/`
          : `http://${host}:${sites.httpPort}/rdap/`;
      bootstrap = {
        description: "RDAP bootstrap file for Domain Name System registrations",
        publication: "2026-11-01T00:00:00Z",
        services: [[tlds, [base]]],
        version: "1.0",
      };
      return `${scheme}://${host}:${scheme === "https" ? sites.httpsPort : sites.httpPort}/dns.json`;
    },
    close: () => sites.close(),
  };
}
