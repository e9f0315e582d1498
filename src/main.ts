// The composition root: config -> platform -> module factories, in dependency order -> the
// services of one process. serve, worker and the tests build it here, so every entry point runs
// the same wiring (the admin CLI's smaller one: src/cli/admin-services.ts).
// First, before anything else loads: see the module (ADR 0057).
import "./lib/object-shapes.mjs";
import { createAccountExport } from "./account-export/create-account-export.js";
import { createAccounts } from "./accounts/create-accounts.js";
import { createAudit } from "./audit/create-audit.js";
import { createBatches } from "./batches/create-batches.js";
import { createChecks } from "./checks/create-checks.js";
import type { Config } from "./config/config.js";
import { createBilling } from "./credits/create-billing.js";
import { createErasure } from "./erasure/create-erasure.js";
import { buildApp } from "./http/app.js";
import { createIntegrations } from "./integrations/create-integrations.js";
import { createIntel } from "./intel/create-domain-intel.js";
import { servicesOf, withExpiryOverrides } from "./jobs/catalog.js";
import { scheduleRecurring, withRecurrence } from "./jobs/recurring.js";
import { createLeads } from "./leads/create-leads.js";
import { createLeadValidation } from "./leads/validation/create-lead-validation.js";
import { createLifecycle } from "./lifecycle/create-lifecycle.js";
import { checkMeters, creditMeter, meterJobs, sweeperMeter, webhookMeter } from "./metrics/instrument.js";
import { createNet } from "./net/create-net.js";
import { createPaidChecks } from "./paid-checks/create-paid-checks.js";
import { createPlatform, type PlatformOptions } from "./platform/create-platform.js";
import { createRetention } from "./retention/create-retention.js";
import { createRevalidation } from "./revalidation/create-revalidation.js";
import { createTeams } from "./teams/create-teams.js";
import { createUsage } from "./usage/create-usage.js";
import { API_VERSION } from "./version.js";
import { createWebhooks } from "./webhooks/create-webhooks.js";
import { createWidget } from "./widget/create-widget.js";

export { createLogger } from "./platform/create-platform.js";
export type Services = Awaited<ReturnType<typeof createServices>>;

/** `websiteCa`: an extra trusted CA for website checks and RDAP (tests). */
export async function createServices(
  config: Readonly<Config>,
  options: PlatformOptions & { websiteCa?: string | Buffer } = {},
) {
  const p = await createPlatform(config, options);
  const net = createNet({ config, websiteCa: options.websiteCa });
  const intel = await createIntel({
    ...p,
    ...net.services,
    ...(options.websiteCa ? { ca: options.websiteCa } : {}),
  });
  const checks = createChecks({ ...p, net: net.services, ...intel.services, ...checkMeters(p.metrics) });
  const { checkedEmail: email, checkedWebsite: website, normalizeWebsite } = checks.services;
  const audit = createAudit(p);
  const base = { ...p, ...audit.services };
  const billing = await createBilling({ ...base, onDebited: creditMeter(p.metrics) });
  const accounts = createAccounts(base);
  const client = net.services.guardedClient({ userAgent: `leadcheck-webhooks/${API_VERSION}` });
  const webhooks = createWebhooks({ ...base, client, onAttempt: webhookMeter(p.metrics) });
  // Ad-hoc `webhookUrl` callbacks (check-email, batches): unsigned, once, through the guard.
  const { webhooks: hooks } = webhooks.services;
  const sendCallback = async (url: string, body: Record<string, unknown>) => {
    await hooks.sendAdHocCallback(url, body);
  };
  const shared = { ...base, ...billing.services, normalizeWebsite, sendCallback };
  const leadValidation = createLeadValidation({ ...p, email, website });
  const batches = createBatches({ ...shared, ...leadValidation.services, website });
  // An erased address does not come back (issue 25): create, import and syncs ask first.
  const erasure = createErasure(base);
  const leads = createLeads({
    ...shared,
    scheduler: batches.services.batches,
    suppression: erasure.services.erasure,
  });
  const paidChecks = createPaidChecks({ ...shared, email, website });
  const integrations = createIntegrations({ ...p, ...net.services, ...leads.services, ...batches.services });
  const widget = createWidget({ ...shared, ...accounts.services, email: checks.services.emailEngine });
  const retention = createRetention({
    ...base,
    onSettingsChanged: (accountId) => erasure.services.erasure.forgetSuppressionSetting(accountId),
  });
  const isNetworkDown = () =>
    config.network.refuseWhenDown && checks.services.networkHealth.dnsDown() !== undefined;
  const revalidation = createRevalidation({ ...base, ...leads.services, ...batches.services, isNetworkDown });
  const sweeping = { ...batches.services, ...leadValidation.services, ...paidChecks.services };
  const lifecycle = createLifecycle({ ...p, ...sweeping, onClosed: sweeperMeter(p.metrics, p.logger) });
  const modules = [
    ...[net, intel, checks, audit, billing, accounts, webhooks, leadValidation, batches, leads, paidChecks],
    ...[integrations, widget, erasure, retention, revalidation, createAccountExport(base)],
    ...[createTeams(base), createUsage(p), lifecycle],
  ] as const;
  const jobs = withRecurrence(
    p.queue,
    modules.flatMap((module) => module.jobs),
  );
  const jobCatalog = meterJobs(p.metrics, withExpiryOverrides(config.jobs.expiryOverridesMs, jobs));
  p.metrics.watchQueue(p.queue, () => jobCatalog.map((job) => job.name));
  const close = async () => {
    await p.stopQueue();
    for (const module of modules.toReversed()) await module.close?.();
    await p.close();
  };
  return { ...p, ...servicesOf(modules), jobCatalog, close };
}

/** Starts the queue (pg-boss creates its schema here), defines every queue of the catalog and
 *  schedules the recurring jobs. */
export async function startQueue(services: Services): Promise<void> {
  // Serve and worker start here: stored connections with no key to open them stop both.
  await services.integrations.connections.assertCanOpenStoredCredentials();
  await services.queue.start();
  for (const job of services.jobCatalog) {
    await services.queue.define(job.name, job.policy, { deadLetter: job.onExhausted !== undefined });
  }
  await scheduleRecurring(services.queue, services.jobCatalog);
}

export function buildHttpApp(services: Services, logger?: Services["logger"]) {
  return buildApp({ ...services, logger, queueReady: () => services.queue.ping() });
}
