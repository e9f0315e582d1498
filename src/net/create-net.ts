// Wires the network module: the shared resolver, the SMTP connector (direct or through
// SMTP_SOCKS_PROXY) and guarded HTTP clients (the SSRF guard's settings are the configuration's).
import type { Config } from "../config/config.js";
import type { Module } from "../jobs/catalog.js";
import { DnsResolver } from "./dns.js";
import { HttpClient } from "./http-client.js";
import { smtpConnector } from "./smtp-client.js";

export interface NetModuleDeps {
  config: Pick<Config, "dnsServers" | "dnsTimeoutMs" | "allowPrivateTargets" | "smtp" | "website">;
  /** Extra trusted CA for website checks and RDAP (tests); production uses NODE_EXTRA_CA_CERTS. */
  websiteCa?: string | Buffer | undefined;
}

export interface NetServices {
  dns: DnsResolver;
  connectSmtp: ReturnType<typeof smtpConnector>;
  /** A client through the SSRF guard; `userAgent` names the caller (webhooks, RDAP); `checks`:
   *  it reaches the sites users name (the website ports, the extra CA of tests). */
  guardedClient(options?: { userAgent?: string; checks?: boolean }): HttpClient;
}

export function createNet(deps: NetModuleDeps): Module<NetServices> {
  const { config } = deps;
  const dns = new DnsResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
  return {
    services: {
      dns,
      connectSmtp: smtpConnector({ socksProxy: config.smtp.socksProxy }),
      guardedClient: (options = {}) =>
        new HttpClient({
          dns,
          allowPrivateTargets: config.allowPrivateTargets,
          ...(options.userAgent ? { userAgent: options.userAgent } : {}),
          ...(options.checks
            ? { httpPort: config.website.httpPort, httpsPort: config.website.httpsPort }
            : {}),
          ...(options.checks && deps.websiteCa ? { ca: deps.websiteCa } : {}),
        }),
    },
    jobs: [],
    close: () => dns.close(),
  };
}
