// Buying credits (spec: "Credits are bought by payment and added instantly. Price: 1 currency unit
// buys 1,000 validations."). One currency unit buys 1,000 milli-credits (1 stored credit, 1,000
// display credits: 1,000 checks at 1 credit each). A checkout is created for a whole number of
// currency units; the provider's signed webhook grants the credits exactly once per event id and
// per session id, in one transaction with the ledger entry that carries the payment id.
import type { CreditsService } from "../credits/credits.service.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { runInTransaction } from "../storage/transaction.js";
import { minorUnitsPerUnit, type PaymentGateway } from "./payment-gateway.js";
import { PaymentsRepo } from "./payments.repo.js";

export const MILLI_CREDITS_PER_CURRENCY_UNIT = 1000;

export interface PaymentSettings {
  enabled: boolean;
  provider: "stripe" | null;
  currency: string;
  minimumAmount: number;
  maximumAmount: number;
  /** Display credits (1 per check) one currency unit buys. */
  displayCreditsPerUnit: number;
}

export type CheckoutOutcome =
  | { kind: "created"; id: string; url: string; amount: number; currency: string; milliCredits: number }
  | { kind: "not_configured" }
  | { kind: "amount_out_of_range"; minimum: number; maximum: number }
  | { kind: "provider_error"; message: string };

export type WebhookOutcome =
  | { kind: "not_configured" }
  | { kind: "invalid_signature"; message: string }
  | { kind: "duplicate_event"; eventId: string }
  | { kind: "ignored"; eventId: string; reason: string }
  | { kind: "awaiting_payment"; eventId: string; sessionId: string }
  | { kind: "already_granted"; eventId: string; sessionId: string }
  | {
      kind: "granted";
      eventId: string;
      sessionId: string;
      accountId: string;
      milliCredits: number;
      paymentId: string;
    };

export class PaymentsService {
  private readonly repo = new PaymentsRepo();

  constructor(
    private readonly deps: {
      database: Database;
      credits: CreditsService;
      clock: Clock;
      /** Absent: buying is off (no keys), operators grant credits instead. */
      gateway: PaymentGateway | undefined;
      currency: string;
      minimumAmount: number;
      maximumAmount: number;
    },
  ) {}

  settings(): PaymentSettings {
    return {
      enabled: this.deps.gateway !== undefined,
      provider: this.deps.gateway?.provider ?? null,
      currency: this.deps.currency,
      minimumAmount: this.deps.minimumAmount,
      maximumAmount: this.deps.maximumAmount,
      displayCreditsPerUnit: MILLI_CREDITS_PER_CURRENCY_UNIT,
    };
  }

  /** A hosted checkout for `amount` whole currency units; `returnUrl` is where the buyer comes back. */
  async startCheckout(accountId: string, amount: number, returnUrl: string): Promise<CheckoutOutcome> {
    const { gateway, currency, minimumAmount, maximumAmount } = this.deps;
    if (!gateway) return { kind: "not_configured" };
    if (!Number.isInteger(amount) || amount < minimumAmount || amount > maximumAmount) {
      return { kind: "amount_out_of_range", minimum: minimumAmount, maximum: maximumAmount };
    }
    const milliCredits = amount * MILLI_CREDITS_PER_CURRENCY_UNIT;
    const separator = returnUrl.includes("?") ? "&" : "?";
    try {
      const session = await gateway.createCheckout({
        accountId,
        amountMinor: amount * minorUnitsPerUnit(currency),
        currency,
        milliCredits,
        productName: `${milliCredits.toLocaleString("en-US")} leadcheck credits`,
        successUrl: `${returnUrl}${separator}checkout=success&session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${returnUrl}${separator}checkout=cancelled`,
      });
      return { kind: "created", id: session.id, url: session.url, amount, currency, milliCredits };
    } catch (error) {
      return { kind: "provider_error", message: (error as Error).message };
    }
  }

  /** A Stripe webhook delivery: verified over its raw bytes, then applied at most once. */
  async handleWebhook(rawBody: Buffer, signatureHeader: string | undefined): Promise<WebhookOutcome> {
    const { gateway } = this.deps;
    if (!gateway) return { kind: "not_configured" };
    const verified = gateway.verifyEvent(rawBody, signatureHeader);
    if (!verified.ok) return { kind: "invalid_signature", message: verified.message };
    const event = verified.event;
    const now = this.deps.clock.now();
    return runInTransaction(this.deps.database.db, async (trx): Promise<WebhookOutcome> => {
      const isNew = await this.repo.recordEventOnce(
        trx,
        { id: event.id, provider: gateway.provider, type: event.type },
        now,
      );
      if (!isNew) return { kind: "duplicate_event", eventId: event.id };
      if (event.kind === "other")
        return { kind: "ignored", eventId: event.id, reason: `event type ${event.type}` };
      const { session } = event;
      if (!session.accountId || session.milliCredits === undefined) {
        return { kind: "ignored", eventId: event.id, reason: "session was not created by leadcheck" };
      }
      // An async payment method completes the session unpaid; its async_payment_succeeded event pays.
      if (!session.paid) return { kind: "awaiting_payment", eventId: event.id, sessionId: session.sessionId };
      const claimed = await this.repo.claimSession(trx, {
        session_id: session.sessionId,
        provider: gateway.provider,
        account_id: session.accountId,
        payment_id: session.paymentId,
        event_id: event.id,
        amount_minor: session.amountMinor,
        currency: session.currency,
        milli_credits: session.milliCredits,
        created_at: now.toISOString(),
      });
      if (!claimed) return { kind: "already_granted", eventId: event.id, sessionId: session.sessionId };
      const entry = await this.deps.credits.grantWithin(trx, {
        accountId: session.accountId,
        amountMilli: session.milliCredits,
        kind: "purchase",
        reason: `Purchase: ${formatMinor(session.amountMinor, session.currency)}`,
        reference: session.paymentId,
        idempotencyKey: `${gateway.provider}:${session.sessionId}`,
      });
      await this.repo.setLedgerEntry(trx, session.sessionId, entry.id);
      return {
        kind: "granted",
        eventId: event.id,
        sessionId: session.sessionId,
        accountId: session.accountId,
        milliCredits: session.milliCredits,
        paymentId: session.paymentId,
      };
    });
  }
}

function formatMinor(amountMinor: number, currency: string): string {
  const perUnit = minorUnitsPerUnit(currency);
  const digits = Math.log10(perUnit);
  return `${(amountMinor / perUnit).toFixed(digits)} ${currency.toUpperCase()}`;
}
