// Wires the integrations module from configuration: the gateways to Google Sheets and HubSpot
// (official clients over the guarded transport), the credentials cipher, and the connections
// service. Syncs and their jobs join here as they land.
import type { Config } from "../config/config.js";
import type { JobDefinition } from "../jobs/catalog.js";
import type { Clock } from "../lib/clock.js";
import type { DnsResolver } from "../net/dns.js";
import type { Database } from "../storage/db.js";
import { ConnectionsService, type GatewayFactory } from "./connections.service.js";
import { CredentialsCipher } from "./credentials-cipher.js";
import { SheetsGateway } from "./google-sheets.gateway.js";
import { guardedAgent, guardedFetch } from "./guarded-transport.js";
import { HubSpotGateway } from "./hubspot.gateway.js";
import { IntegrationsRepo } from "./integrations.repo.js";

export interface IntegrationsModuleDeps {
  config: Pick<Config, "integrations" | "allowPrivateTargets">;
  database: Database;
  clock: Clock;
  dns: Pick<DnsResolver, "resolveAddresses">;
}

export interface IntegrationsServices {
  connections: ConnectionsService;
}

export function createIntegrations(deps: IntegrationsModuleDeps): {
  services: IntegrationsServices;
  jobs: JobDefinition[];
} {
  const settings = deps.config.integrations;
  const guard = { dns: deps.dns, allowPrivateTargets: deps.config.allowPrivateTargets };
  const backoff = {
    retryLimit: settings.retryLimit,
    baseDelayMs: settings.retryBaseDelayMs,
    maxDelayMs: settings.retryMaxDelayMs,
  };
  const fetch = guardedFetch(guard);
  const agent = guardedAgent(settings.hubspotApiUrl, guard);
  const gateways: GatewayFactory = {
    hubspot: (accessToken) =>
      new HubSpotGateway(accessToken, {
        apiUrl: settings.hubspotApiUrl,
        agent,
        backoff,
        requestsPerWindow: settings.hubspotRequestsPerWindow,
        windowMs: settings.hubspotWindowMs,
      }),
    sheets: (account) =>
      new SheetsGateway(account, {
        sheetsApiUrl: settings.googleSheetsApiUrl,
        tokenUrl: settings.googleOAuthTokenUrl,
        fetch,
        backoff,
        requestsPerWindow: settings.googleRequestsPerWindow,
        windowMs: settings.googleWindowMs,
        requestTimeoutMs: settings.requestTimeoutMs,
      }),
  };
  const repo = new IntegrationsRepo();
  const connections = new ConnectionsService({
    database: deps.database,
    repo,
    clock: deps.clock,
    cipher: settings.secretKey ? new CredentialsCipher(settings.secretKey) : undefined,
    gateways,
  });
  return { services: { connections }, jobs: [] };
}
