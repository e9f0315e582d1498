// A check that cannot start because every network path it needs is known down is answered 503
// before any debit (decisions §8, ADR 0020): both the email and the website check need DNS. SMTP
// egress alone is not such a path: an email check still learns the domain's mail setup from DNS.

import type { Config } from "../config/config.js";
import { isTestSpace } from "../lib/data-space.js";
import type { NetworkHealth } from "../net/network-health.js";
import { AppError } from "./app-error.js";

/** What the refusal reads: the NETWORK_REFUSE_WHEN_DOWN setting and the network health. */
export interface NetworkRefusalDeps {
  config: Pick<Readonly<Config>, "network">;
  networkHealth?: Pick<NetworkHealth, "dnsDown"> | undefined;
}

/** `accountId`: the data space the work is for; a test space's checks are scripted and need no network. */
export function refuseWhenDnsDown(deps: NetworkRefusalDeps, what: string, accountId: string): void {
  if (!deps.config.network.refuseWhenDown || !deps.networkHealth || isTestSpace(accountId)) return;
  const down = deps.networkHealth.dnsDown();
  if (!down) return;
  const retryAfterSeconds = Math.max(1, Math.ceil((deps.config.network.intervalMs || 60_000) / 1000));
  throw new AppError(
    "SERVICE_UNAVAILABLE",
    `The ${what} cannot start: this service's DNS resolvers are unavailable (${down.reason}). Nothing was charged. Set DNS_SERVERS to a working resolver; GET /v1/status shows when it recovers.`,
    { reason: "resolver_unavailable", network: "dns", since: down.since, status: "/v1/status" },
    {},
    { "Retry-After": String(retryAfterSeconds) },
  );
}
