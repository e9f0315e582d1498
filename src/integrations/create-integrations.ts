// Wires the integrations module from configuration: the gateways to Google Sheets and HubSpot
// (official clients over the guarded transport), the credentials cipher, and the connections
// and syncs services, and the sync job for the catalog.
import { createHash } from "node:crypto";
import type { BatchesService } from "../batches/batches.service.js";
import type { Config } from "../config/config.js";
import type { EventBus } from "../events/events.js";
import type { Module } from "../jobs/catalog.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { LeadsService } from "../leads/leads.service.js";
import type { Clock } from "../lib/clock.js";
import type { DnsResolver } from "../net/dns.js";
import type { Database } from "../storage/db.js";
import { ConnectionsService, type GatewayFactory } from "./connections.service.js";
import { CredentialsCipher } from "./credentials-cipher.js";
import { type SheetsGates, SheetsGateway, sheetsGates } from "./google-sheets.gateway.js";
import { guardedAgent, guardedFetch } from "./guarded-transport.js";
import { HubSpotGateway, hubspotGate } from "./hubspot.gateway.js";
import { integrationJobDefinitions } from "./integrations.jobs.js";
import { IntegrationsRepo } from "./integrations.repo.js";
import type { RateGate } from "./remote-error.js";
import { SyncPreviewService } from "./sync-preview.js";
import { SyncRunner } from "./sync-runner.js";
import { SyncsService } from "./syncs.service.js";

export interface IntegrationsModuleDeps {
  config: Pick<Config, "integrations" | "allowPrivateTargets" | "prices">;
  database: Database;
  clock: Clock;
  dns: Pick<DnsResolver, "resolveAddresses">;
  queue: JobQueue;
  events: EventBus;
  /** Synced rows and contacts become leads through the leads module's services. */
  leads: LeadsService;
  /** The sync's validation is a normal batch; the runner polls it here. */
  batches: BatchesService;
}

export interface IntegrationsServices {
  connections: ConnectionsService;
  syncs: SyncsService;
  preview: SyncPreviewService;
}

export function createIntegrations(
  deps: IntegrationsModuleDeps,
): Module<{ integrations: IntegrationsServices }> {
  const settings = deps.config.integrations;
  const guard = { dns: deps.dns, allowPrivateTargets: deps.config.allowPrivateTargets };
  const backoff = {
    retryLimit: settings.retryLimit,
    baseDelayMs: settings.retryBaseDelayMs,
    maxDelayMs: settings.retryMaxDelayMs,
  };
  const fetch = guardedFetch(guard);
  const agent = guardedAgent(settings.hubspotApiUrl, guard);
  // One window per HubSpot token, and one pair of quotas per service account, in this process: a
  // sync's attempts (a new client each), its preview and a connect share them.
  const hubspotGates = new Map<string, RateGate>();
  const gateFor = (accessToken: string) => {
    const key = createHash("sha256").update(accessToken).digest("base64url");
    const gate =
      hubspotGates.get(key) ?? hubspotGate(settings.hubspotRequestsPerWindow, settings.hubspotWindowMs);
    hubspotGates.set(key, gate);
    return gate;
  };
  const googleGates = new Map<string, SheetsGates>();
  const gatesFor = (clientEmail: string) => {
    const gates =
      googleGates.get(clientEmail) ?? sheetsGates(settings.googleRequestsPerWindow, settings.googleWindowMs);
    googleGates.set(clientEmail, gates);
    return gates;
  };
  const gateways: GatewayFactory = {
    hubspot: (accessToken) =>
      new HubSpotGateway(accessToken, {
        apiUrl: settings.hubspotApiUrl,
        agent,
        backoff,
        requestsPerWindow: settings.hubspotRequestsPerWindow,
        windowMs: settings.hubspotWindowMs,
        gate: gateFor(accessToken),
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
        gates: gatesFor(account.client_email),
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
  const syncs = new SyncsService({ database: deps.database, repo, clock: deps.clock, queue: deps.queue });
  const runner = new SyncRunner({
    database: deps.database,
    repo,
    clock: deps.clock,
    events: deps.events,
    leads: deps.leads,
    batches: deps.batches,
    connections,
    gateways,
    queue: deps.queue,
    watchMinuteMs: settings.watchMinuteMs,
    sheetWriteRows: settings.sheetWriteRows,
  });
  return {
    services: {
      integrations: {
        connections,
        syncs,
        preview: new SyncPreviewService({
          connections,
          gateways,
          leads: deps.leads,
          priceMilli: deps.config.prices.leadValidation,
        }),
      },
    },
    jobs: integrationJobDefinitions(runner, syncs, deps.queue, settings.syncPollMs),
  };
}
