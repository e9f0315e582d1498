// Builds NetworkHealth from the configuration: canaries asked over DNS_SERVERS without a cache,
// the SMTP egress self-check as its second path, and a log line plus a flushed DNS cache whenever
// a path changes state (answers cached from a lying resolver must not outlive its distrust).
import type { Config } from "../config/config.js";
import type { Clock } from "../lib/clock.js";
import { DnsResolver } from "./dns.js";
import { type EgressCheck, NetworkHealth } from "./network-health.js";

export interface NetworkHealthWiring {
  config: Pick<Config, "dnsServers" | "network" | "smtp">;
  clock: Clock;
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** The checks' resolver: its cache is flushed on every DNS state change. */
  dns: { clearCache(): void };
  smtpSelfCheck: EgressCheck;
}

export function createNetworkHealth(wiring: NetworkHealthWiring): {
  health: NetworkHealth;
  close(): void;
} {
  const { config, clock, logger, dns } = wiring;
  // TTLs of 0: nothing is cached, so every round asks the resolvers again.
  const canaryResolver = new DnsResolver({
    servers: config.dnsServers,
    timeoutMs: config.network.canaryTimeoutMs,
    negativeTtlSeconds: 0,
    maxTtlSeconds: 0,
  });
  const health = new NetworkHealth({
    resolver: canaryResolver,
    resolverLabel:
      config.dnsServers.length > 0
        ? `DNS_SERVERS (${config.dnsServers.join(", ")})`
        : "the system's resolvers (DNS_SERVERS is unset)",
    canaries: config.network.canaries,
    smtp: config.smtp.selfCheck
      ? { check: wiring.smtpSelfCheck, needsDns: config.smtp.socksProxy === undefined }
      : undefined,
    clock,
    intervalMs: config.network.intervalMs,
    onChange: (path, status) => {
      if (path === "dns") dns.clearCache();
      const fields = { path, state: status.state, since: status.since, reason: status.reason };
      if (status.state === "down")
        logger.warn(
          fields,
          path === "dns"
            ? "DNS distrusted: every canary lookup failed; DNS facts are unknown (resolver_unavailable) until a round passes. Set DNS_SERVERS to a working resolver."
            : "SMTP egress blocked: email results needing SMTP are unknown (egress_blocked). Open port 25 or set SMTP_SOCKS_PROXY.",
        );
      else logger.info(fields, `network ${path}: ${status.state}`);
    },
  });
  return {
    health,
    close() {
      health.stop();
      canaryResolver.close();
    },
  };
}
