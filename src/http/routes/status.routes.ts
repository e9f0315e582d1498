// GET /v1/status: whether this service can see the world (ADR 0020). The dashboard's banner and
// the CLI read it; any valid key or identity may, since it says nothing about an account.
import { NetworkStatusSchema } from "../../net/health.schemas.js";
import type { NetworkHealth, NetworkStatus } from "../../net/network-health.js";
import type { App } from "../app-types.js";
import { DATA_SECURITY } from "../schemas.js";

const NOT_WATCHED: NetworkStatus = {
  network: {
    dns: { state: "unknown", since: null, reason: "not watched by this process" },
    smtp: { state: "unknown", since: null, reason: "not watched by this process" },
  },
  checkedAt: null,
};

/** What these routes use (the app hands each route file only its own deps). */
export interface StatusRoutesDeps {
  networkHealth?: Pick<NetworkHealth, "status" | "dnsDown"> | undefined;
}

export async function statusRoutes(app: App, deps: StatusRoutesDeps): Promise<void> {
  app.get(
    "/v1/status",
    {
      config: { auth: "data", permission: "authenticated" },
      schema: {
        tags: ["health"],
        security: DATA_SECURITY,
        operationId: "getStatus",
        summary: "Network status: whether DNS and SMTP egress work, and since when",
        description:
          "Checked at start-up and every NETWORK_CHECK_INTERVAL_MS (60 s by default). While `dns` is down, checks are answered 503 SERVICE_UNAVAILABLE before any charge (REFUSE_WHEN_NETWORK_DOWN) and queued work says `resolver_unavailable`; while `smtp` is down, email results say `egress_blocked`.",
        response: { 200: NetworkStatusSchema },
      },
    },
    async () => deps.networkHealth?.status() ?? NOT_WATCHED,
  );
}
