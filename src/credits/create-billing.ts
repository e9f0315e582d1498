// Wires the billing module: credits (the ledger every paid call debits) and payments (Stripe
// checkout, when both of its keys are set; its library loads only then, otherwise buying is off
// and operators grant credits).
import type { AuditTrail } from "../audit/audit.service.js";
import type { Config } from "../config/config.js";
import type { EventBus } from "../events/events.js";
import type { Module } from "../jobs/catalog.js";
import type { Clock } from "../lib/clock.js";
import type { PaymentGateway } from "../payments/payment-gateway.js";
import { PaymentsRepo } from "../payments/payments.repo.js";
import { PaymentsService } from "../payments/payments.service.js";
import type { Database } from "../storage/db.js";
import { CreditsRepo } from "./credits.repo.js";
import { CreditsService } from "./credits.service.js";

export interface BillingModuleDeps {
  config: Pick<Config, "newAccountMilliCredits" | "payments">;
  database: Database;
  events: EventBus;
  clock: Clock;
  audit: AuditTrail;
  /** Told of every debit written now (metrics). */
  onDebited?: (amountMilli: number) => void;
}

export async function createBilling(
  deps: BillingModuleDeps,
): Promise<Module<{ credits: CreditsService; payments: PaymentsService }>> {
  const credits = createCredits(deps);
  const { payments: settings } = deps.config;
  const payments = new PaymentsService({
    database: deps.database,
    repo: new PaymentsRepo(),
    credits,
    clock: deps.clock,
    gateway: await paymentGateway(deps.config),
    currency: settings.currency,
    minimumAmount: settings.minimumAmount,
    maximumAmount: settings.maximumAmount,
  });
  return { services: { credits, payments }, jobs: [] };
}

/** The credits service alone (the admin CLI's `credits grant` and `keys create`). */
export function createCredits(
  deps: Omit<BillingModuleDeps, "config"> & {
    config: Pick<Config, "newAccountMilliCredits">;
  },
): CreditsService {
  return new CreditsService({
    database: deps.database,
    repo: new CreditsRepo(),
    events: deps.events,
    clock: deps.clock,
    newAccountMilliCredits: deps.config.newAccountMilliCredits,
    audit: deps.audit,
    ...(deps.onDebited ? { onDebited: deps.onDebited } : {}),
  });
}

async function paymentGateway(config: Pick<Config, "payments">): Promise<PaymentGateway | undefined> {
  const { stripeSecretKey, stripeWebhookSecret, stripeApiUrl } = config.payments;
  if (!stripeSecretKey || !stripeWebhookSecret) return undefined;
  const { StripeGateway } = await import("../payments/stripe-gateway.js");
  return new StripeGateway({
    secretKey: stripeSecretKey,
    webhookSecret: stripeWebhookSecret,
    apiUrl: stripeApiUrl,
  });
}
