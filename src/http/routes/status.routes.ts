// GET /v1/status: whether this service can see the world (ADR 0020). The dashboard's banner and
// the CLI read it; any valid key or identity may, since it says nothing about an account.

import { Type } from "@sinclair/typebox";
import type { NetworkHealth, NetworkStatus } from "../../net/network-health.js";
import type { App } from "../app-types.js";
import { DATA_SECURITY, Nullable, Timestamp } from "../schemas.js";

const PathStatusSchema = (what: string) =>
  Type.Object(
    {
      state: Type.Union([Type.Literal("ok"), Type.Literal("down"), Type.Literal("unknown")], {
        description: `${what} ok: the last check passed. down: it failed; results that need this path are unknown and say why in their reason. unknown: not checked yet (or not checkable now).`,
      }),
      since: Nullable(Timestamp, "When the path entered this state; null before the first check."),
      reason: Nullable(Type.String(), "Why the path is down or unknown; null when ok."),
    },
    { additionalProperties: false },
  );

const DnsPath = PathStatusSchema(
  "The configured resolvers (DNS_SERVERS), judged by canary lookups (DNS_CANARY_NAMES): down only when every canary fails, and then DNS facts are `resolver_unavailable`.",
);
const SmtpPath = PathStatusSchema(
  "SMTP egress: port 25 of a public mail host, directly or through SMTP_SOCKS_PROXY; down means email results that need SMTP are `egress_blocked`.",
);
const CheckedAt = Nullable(Timestamp, "End of the last round of checks; null before the first.");

export const NetworkStatusSchema = Type.Object(
  {
    network: Type.Object({ dns: DnsPath, smtp: SmtpPath }, { additionalProperties: false }),
    checkedAt: CheckedAt,
  },
  { additionalProperties: false },
);

/** The same facts flattened for /readiness's details. */
export const ReadinessNetworkSchema = Type.Object(
  { dns: DnsPath, smtp: SmtpPath, checkedAt: CheckedAt },
  {
    additionalProperties: false,
    description:
      "DNS and SMTP egress, as GET /v1/status shows them. Informational: a path that is down does not make the service unready (every instance shares it, and leads, keys and credits still work).",
  },
);

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
