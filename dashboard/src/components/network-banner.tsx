// A banner above every page while the server cannot see the world (GET /v1/status): what is down,
// since when, what it does to results, and what the operator sets. Polled once a minute, as the
// server checks; an older server without the route, or a failed poll, shows nothing.
import { useEffect, useState } from "react";
import type { NetworkStatus } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";

const POLL_MS = 60_000;

const since = (iso: string | null) => (iso ? ` since ${new Date(iso).toLocaleString()}` : "");

export function NetworkBanner() {
  const api = useApi();
  const [status, setStatus] = useState<NetworkStatus | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const poll = () =>
      api.guard(api.client.status({ signal: controller.signal }), controller.signal).then(
        (next) => !controller.signal.aborted && setStatus(next),
        () => !controller.signal.aborted && setStatus(null),
      );
    void poll();
    const timer = setInterval(poll, POLL_MS);
    return () => {
      controller.abort();
      clearInterval(timer);
    };
  }, [api]);

  const dns = status?.network.dns;
  const smtp = status?.network.smtp;
  if (dns?.state !== "down" && smtp?.state !== "down") return null;
  return (
    <div className="alert network-banner" role="alert" data-testid="network-banner">
      <strong>The server cannot check everything right now.</strong>
      <ul>
        {dns?.state === "down" && (
          <li data-testid="network-banner-dns">
            DNS is down{since(dns.since)}: its resolver fails every test lookup, so results that need DNS show
            as unknown (“resolver_unavailable”) and new checks are refused without charge. Ask the operator to
            set <code>DNS_SERVERS</code> to a resolver that answers.
          </li>
        )}
        {smtp?.state === "down" && (
          <li data-testid="network-banner-smtp">
            Mail servers cannot be reached{since(smtp.since)}: mailbox results show as unknown
            (“egress_blocked”). Most clouds block outbound port 25: ask the operator to open it or to set{" "}
            <code>SMTP_SOCKS_PROXY</code> to a proxy that can reach it.
          </li>
        )}
      </ul>
    </div>
  );
}
