// The one line `leadcheck check` prints (to stderr) while the server cannot see the world, so a
// user is told why results are unknown or refused, and what the server's operator can change.
import type { NetworkStatus } from "../../sdk/src/index.js";

const WHAT_TO_DO = {
  dns: "DNS facts are unknown (resolver_unavailable) and checks are refused uncharged; set DNS_SERVERS on the server to a resolver that answers",
  smtp: "mailbox checks are unknown (egress_blocked); open outbound port 25 or set SMTP_SOCKS_PROXY (most clouds block port 25)",
} as const;

/** Undefined while every path is ok or unknown. */
export function networkLine(status: NetworkStatus | undefined): string | undefined {
  if (!status) return undefined;
  const down = (["dns", "smtp"] as const).filter((path) => status.network[path].state === "down");
  if (down.length === 0) return undefined;
  const parts = down.map((path) => {
    const since = status.network[path].since;
    return `${path === "dns" ? "DNS" : "SMTP egress"} down${since ? ` since ${since}` : ""}: ${WHAT_TO_DO[path]}`;
  });
  return `leadcheck: the server's network is impaired. ${parts.join(". ")}.`;
}
