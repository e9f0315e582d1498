// What the OpenAPI document says about the API as a whole, for client generators and API portals
// (Spectral's spectral:oas ruleset, `npm run lint:openapi`): every tag an operation uses, defined
// with a description, the server to call, and who runs it.
import type { Config } from "../config/config.js";

/** Every tag a route may use; an operation with a tag missing here fails `npm run lint:openapi`. */
export const OPENAPI_TAGS = [
  { name: "health", description: "Liveness and readiness probes for load balancers and orchestrators." },
  { name: "keys", description: "API keys of the signed-in account (identity JWT only)." },
  { name: "credits", description: "Balance, ledger and buying credits with Stripe." },
  { name: "admin", description: "Operator endpoints (ADMIN_TOKEN)." },
  { name: "leads", description: "Leads: create, import, list, export, validate, and their 0-100 ratings." },
  {
    name: "batches",
    description: "Batches of lead validations and website checks, with progress and results.",
  },
  { name: "validation", description: "One-off email and website checks, and the jobs behind them." },
  { name: "webhooks", description: "Webhook endpoints, signed deliveries and their history." },
  {
    name: "widget",
    description: "The signup-form widget: publishable-key checks and their backend confirmation.",
  },
  {
    name: "connections",
    description: "Google Sheets and HubSpot connections, their syncs, write-back and watches.",
  },
  { name: "audit", description: "The tamper-evident audit log: who did what, verifiable and exportable." },
  { name: "data", description: "Personal data: erasure, retention settings and account export." },
  {
    name: "team",
    description: "Members and roles of an account, and invitations bound to a verified email.",
  },
  {
    name: "session",
    description: "Dashboard single sign-on over OpenID Connect: session cookie and logout.",
  },
];

const DEFAULT_PUBLIC_URL = "http://localhost:8080";

/** The base URL clients call: PUBLIC_URL when set, else the default local address. */
export function publicBaseUrl(config: Pick<Config, "payments">): string {
  return (config.payments.publicUrl ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, "");
}

/** Who answers for this API: whoever operates this server, reached where it is served. */
export function openApiContact(config: Pick<Config, "payments">): { name: string; url: string } {
  return { name: "The operator of this leadcheck server", url: publicBaseUrl(config) };
}
