// Wires the checks module: the email and website engines (with domain intelligence when it is
// on), the SMTP self-check and the network health that watches DNS and SMTP egress, and the
// guarded checkers every check made for a user goes through (no DNS answer is a fact while DNS is
// distrusted; a test data space gets scripted answers instead). Metrics come in as observer callbacks.
import type { Config } from "../config/config.js";
import type { DomainIntelEngine } from "../intel/domain-intel.js";
import type { Module } from "../jobs/catalog.js";
import type { Clock } from "../lib/clock.js";
import type { NetServices } from "../net/create-net.js";
import { createNetworkHealth } from "../net/create-network-health.js";
import { classifyAddress } from "../net/guard.js";
import type { NetworkHealth } from "../net/network-health.js";
import { EmailEngine, type EmailEngineOptions } from "./email/email-engine.js";
import { fetchHeadStatus, M365PersonalSite } from "./email/m365-personal-site.js";
import { SmtpSelfCheck } from "./email/smtp-self-check.js";
import { NetworkGuardedEmail, NetworkGuardedWebsite } from "./network-guard.js";
import { DataSpaceEmail, DataSpaceWebsite } from "./test-mode/data-space-checks.js";
import { ScriptedEmail } from "./test-mode/scripted-email.js";
import { ScriptedWebsite } from "./test-mode/scripted-website.js";
import { normalizeWebsite } from "./website/normalize.js";
import { WebsiteEngine, type WebsiteEngineOptions } from "./website/website.engine.js";
import type { WebsiteNormalizer } from "./website/website.types.js";

export interface ChecksModuleDeps {
  config: Pick<
    Config,
    "smtp" | "website" | "intel" | "allowPrivateTargets" | "network" | "dnsServers" | "dnsTimeoutMs"
  >;
  clock: Clock;
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  net: NetServices;
  domainIntel: DomainIntelEngine | undefined;
  onVerified?: EmailEngineOptions["onVerified"];
  onChecked?: WebsiteEngineOptions["onChecked"];
}

export interface ChecksServices {
  emailEngine: EmailEngine;
  websiteEngine: WebsiteEngine;
  smtpSelfCheck: SmtpSelfCheck;
  /** Resolver and SMTP egress health; `serve` and `worker` start it (ADR 0020). */
  networkHealth: NetworkHealth;
  /** What checks made for users call: the engines behind the network guard, or, for a test data
   *  space, scripted answers that never reach the network (ADR 0051). */
  checkedEmail: DataSpaceEmail;
  checkedWebsite: DataSpaceWebsite;
  normalizeWebsite: WebsiteNormalizer;
}

export function createChecks(deps: ChecksModuleDeps): Module<ChecksServices> {
  const { config, clock, net } = deps;
  const { dns, connectSmtp } = net;
  const intel = deps.domainIntel ? { intel: deps.domainIntel, intelBudgetMs: config.intel.budgetMs } : {};
  // Run by the serve and worker processes at start-up (server.ts); until then nothing is blocked.
  const smtpSelfCheck = new SmtpSelfCheck({
    dns,
    connectSmtp,
    heloName: config.smtp.heloName,
    probeHost: config.smtp.egressProbeHost,
    port: config.smtp.port,
    socksProxy: config.smtp.socksProxy,
    timeoutMs: config.smtp.connectTimeoutMs,
    now: () => clock.now(),
  });
  const emailEngine = new EmailEngine({
    ...intel,
    onVerified: deps.onVerified,
    isEgressBlocked: () => smtpSelfCheck.isEgressBlocked(),
    m365PersonalSite: config.smtp.m365PersonalSiteCheck
      ? new M365PersonalSite({ headStatus: fetchHeadStatus(config.smtp.connectTimeoutMs) })
      : undefined,
    dns,
    clock,
    smtpPort: config.smtp.port,
    heloName: config.smtp.heloName,
    mailFrom: config.smtp.mailFrom,
    connectSmtp,
    connectTimeoutMs: config.smtp.connectTimeoutMs,
    commandTimeoutMs: config.smtp.commandTimeoutMs,
    totalDeadlineMs: config.smtp.totalDeadlineMs,
    maxConnectionsPerMx: config.smtp.maxConnectionsPerMx,
    // The SSRF guard covers SMTP probes too: an MX pointing at a private address is not probed.
    ...(config.allowPrivateTargets
      ? {}
      : { isAddressAllowed: (address: string) => classifyAddress(address) === null }),
  });
  const websiteEngine = new WebsiteEngine({
    ...intel,
    onChecked: deps.onChecked,
    dns,
    client: net.guardedClient({ checks: true }),
    clock,
    firstTryTimeoutMs: config.website.firstTryTimeoutMs,
    retryTimeoutMs: config.website.retryTimeoutMs,
    fallbackTimeoutMs: config.website.fallbackTimeoutMs,
    totalDeadlineMs: config.website.totalDeadlineMs,
  });
  const network = createNetworkHealth({ config, clock, logger: deps.logger, dns, smtpSelfCheck });
  return {
    services: {
      emailEngine,
      websiteEngine,
      smtpSelfCheck,
      networkHealth: network.health,
      checkedEmail: new DataSpaceEmail({
        live: new NetworkGuardedEmail({ inner: emailEngine, dns: network.health }),
        test: new ScriptedEmail(),
      }),
      checkedWebsite: new DataSpaceWebsite({
        live: new NetworkGuardedWebsite({ inner: websiteEngine, dns: network.health, clock }),
        test: new ScriptedWebsite({ clock }),
      }),
      normalizeWebsite: (input) => {
        const n = normalizeWebsite(input);
        return n.ok ? { ok: true, url: n.url } : { ok: false, message: n.message };
      },
    },
    jobs: [],
    close: async () => {
      network.close();
      await emailEngine.close();
    },
  };
}
