// Wire shapes of the service's health: GET /v1/status's network paths (ADR 0020) and the body of
// the readiness and liveness probes.
import { Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "../lib/schema.js";

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
const ReadinessNetworkSchema = Type.Object(
  { dns: DnsPath, smtp: SmtpPath, checkedAt: CheckedAt },
  {
    additionalProperties: false,
    description:
      "DNS and SMTP egress, as GET /v1/status shows them. Informational: a path that is down does not make the service unready (every instance shares it, and leads, keys and credits still work).",
  },
);

export const ProbeBody = Type.Object({
  status: Type.String(),
  timestamp: Type.String(),
  checks: Type.Optional(Type.Record(Type.String(), Type.String())),
  details: Type.Optional(
    Type.Object(
      {
        smtp: Type.Optional(
          Type.Object(
            {
              egress: Type.Union([Type.Literal("unchecked"), Type.Literal("ok"), Type.Literal("blocked")], {
                description:
                  "Whether this host reached port 25 (or its SOCKS proxy) at its last check (start-up, then every NETWORK_CHECK_INTERVAL_MS). blocked: every email result that needs SMTP is unknown with reason egress_blocked. Informational: it does not make the service unready.",
              }),
              egressMessage: Type.Optional(Type.String()),
              egressAddress: Type.Optional(Type.String()),
              heloName: Type.String(),
              heloWarnings: Type.Array(Type.String(), {
                description:
                  "SMTP_HELO_NAME problems found at start-up: not fully qualified, no A record, A not the egress address, PTR not naming it back.",
              }),
              checkedAt: Type.Optional(Type.String()),
            },
            { additionalProperties: false },
          ),
        ),
        network: Type.Optional(ReadinessNetworkSchema),
      },
      { additionalProperties: false },
    ),
  ),
});
