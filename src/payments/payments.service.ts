// Buying credits (spec: "Credits are bought by payment and added instantly. Price: 1 currency unit
// buys 1,000 validations."). One currency unit buys 1,000 milli-credits (1 stored credit, 1,000
// display credits: 1,000 checks at 1 credit each). A checkout is created for a whole number of
// currency units, and recorded (checkout_sessions: account, amount, currency, credits) before its
// URL is handed out. The provider's signed webhook only names a session: the service asks the
// provider for that session, checks it against our record, and grants what the record says,
// exactly once per session, in one transaction with the ledger entry that carries the payment id.
// Nothing in an event's metadata decides who is granted or how much (ADR 0016, revision 2).
import type { CreditsService } from "../credits/credits.service.js";
import type { Clock } from "../lib/clock.js";
import type { Database } from "../storage/db.js";
import { runInTransaction } from "../storage/transaction.js";
import { minorUnitsPerUnit, type PaymentGateway, type SessionClaims } from "./payment-gateway.js";
import type { PaymentsRepo } from "./payments.repo.js";

const MILLI_CREDITS_PER_CURRENCY_UNIT = 1000;

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

/** Where a signed event's claims differ from our record: "account", "credits". Logged, not obeyed. */
type ClaimMismatch = "account" | "credits";

export type WebhookOutcome =
  | { kind: "not_configured" }
  | { kind: "invalid_signature"; message: string }
  | { kind: "provider_unavailable"; message: string }
  | { kind: "duplicate_event"; eventId: string }
  | { kind: "ignored"; eventId: string; reason: string }
  /** A session leadcheck never created (another integration on the account, or a forgery). */
  | { kind: "unknown_session"; eventId: string; sessionId: string; claims: SessionClaims }
  /** Ours, but the provider's session disagrees with what we sold, or the provider has no such session. */
  | { kind: "refused"; eventId: string; sessionId: string; reason: string; mismatches: ClaimMismatch[] }
  | { kind: "awaiting_payment"; eventId: string; sessionId: string; mismatches: ClaimMismatch[] }
  | { kind: "already_granted"; eventId: string; sessionId: string; mismatches: ClaimMismatch[] }
  | {
      kind: "granted";
      eventId: string;
      sessionId: string;
      accountId: string;
      milliCredits: number;
      paymentId: string;
      mismatches: ClaimMismatch[];
    };

export class PaymentsService {
  constructor(
    private readonly deps: {
      database: Database;
      /** Its repository, built by the module's factory. */
      repo: PaymentsRepo;
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
    const amountMinor = amount * minorUnitsPerUnit(currency);
    const separator = returnUrl.includes("?") ? "&" : "?";
    let session: { id: string; url: string };
    try {
      session = await gateway.createCheckout({
        accountId,
        amountMinor,
        currency,
        milliCredits,
        productName: `${milliCredits.toLocaleString("en-US")} leadcheck credits`,
        successUrl: `${returnUrl}${separator}checkout=success&session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${returnUrl}${separator}checkout=cancelled`,
      });
    } catch (error) {
      return { kind: "provider_error", message: (error as Error).message };
    }
    // Recorded before the buyer gets the URL: a session we could not record is never paid. A
    // storage failure here is ours, not the provider's: it propagates (500, logged).
    await this.deps.repo.recordCheckoutSession(this.deps.database.db, {
      session_id: session.id,
      provider: gateway.provider,
      account_id: accountId,
      amount_minor: amountMinor,
      currency,
      milli_credits: milliCredits,
      created_at: this.deps.clock.now().toISOString(),
    });
    return { kind: "created", id: session.id, url: session.url, amount, currency, milliCredits };
  }

  /** A Stripe webhook delivery: verified over its raw bytes, checked against the provider and our
   *  record, then applied at most once. */
  async handleWebhook(rawBody: Buffer, signatureHeader: string | undefined): Promise<WebhookOutcome> {
    const { gateway } = this.deps;
    if (!gateway) return { kind: "not_configured" };
    const verified = gateway.verifyEvent(rawBody, signatureHeader);
    if (!verified.ok) return { kind: "invalid_signature", message: verified.message };
    const event = verified.event;
    if (event.kind === "other")
      return { kind: "ignored", eventId: event.id, reason: `event type ${event.type}` };
    const { db } = this.deps.database;
    if (await this.deps.repo.isEventRecorded(db, event.id))
      return { kind: "duplicate_event", eventId: event.id };
    const { sessionId, claims } = event;
    const sold = await this.deps.repo.findCheckoutSession(db, sessionId);
    if (!sold) return { kind: "unknown_session", eventId: event.id, sessionId, claims };
    const mismatches: ClaimMismatch[] = [];
    if (claims.accountId !== undefined && claims.accountId !== sold.account_id) mismatches.push("account");
    if (claims.milliCredits !== undefined && claims.milliCredits !== sold.milli_credits)
      mismatches.push("credits");
    let session: Awaited<ReturnType<PaymentGateway["retrieveSession"]>>;
    try {
      session = await gateway.retrieveSession(sessionId);
    } catch (error) {
      return { kind: "provider_unavailable", message: (error as Error).message };
    }
    const refused = (reason: string): WebhookOutcome => ({
      kind: "refused",
      eventId: event.id,
      sessionId,
      reason,
      mismatches,
    });
    if (!session) return refused("the provider has no such session");
    if (session.id !== sold.session_id) return refused(`the provider answered for session ${session.id}`);
    if (session.accountId !== sold.account_id) return refused("the session was created for another account");
    if (session.amountMinor !== sold.amount_minor || session.currency?.toLowerCase() !== sold.currency) {
      return refused(
        `the session charges ${session.amountMinor} ${session.currency}, we sold ${sold.amount_minor} ${sold.currency}`,
      );
    }
    if (session.paymentStatus === "unpaid")
      return { kind: "awaiting_payment", eventId: event.id, sessionId, mismatches };
    if (session.paymentStatus !== "paid") return refused(`payment status ${session.paymentStatus}`);
    const now = this.deps.clock.now();
    return runInTransaction(db, async (trx): Promise<WebhookOutcome> => {
      const isNew = await this.deps.repo.recordEventOnce(
        trx,
        { id: event.id, provider: gateway.provider, type: event.type },
        now,
      );
      if (!isNew) return { kind: "duplicate_event", eventId: event.id };
      const claimed = await this.deps.repo.claimSession(trx, {
        session_id: sessionId,
        provider: gateway.provider,
        account_id: sold.account_id,
        payment_id: session.paymentId,
        event_id: event.id,
        amount_minor: sold.amount_minor,
        currency: sold.currency,
        milli_credits: sold.milli_credits,
        created_at: now.toISOString(),
      });
      if (!claimed) return { kind: "already_granted", eventId: event.id, sessionId, mismatches };
      const entry = await this.deps.credits.grantWithin(trx, {
        accountId: sold.account_id,
        amountMilli: sold.milli_credits,
        kind: "purchase",
        reason: `Purchase: ${formatMinor(sold.amount_minor, sold.currency)}`,
        reference: session.paymentId,
        idempotencyKey: `${gateway.provider}:${sessionId}`,
        actor: { kind: "system", id: gateway.provider },
      });
      await this.deps.repo.setLedgerEntry(trx, sessionId, entry.id);
      return {
        kind: "granted",
        eventId: event.id,
        sessionId,
        accountId: sold.account_id,
        milliCredits: sold.milli_credits,
        paymentId: session.paymentId,
        mismatches,
      };
    });
  }
}

function formatMinor(amountMinor: number, currency: string): string {
  const perUnit = minorUnitsPerUnit(currency);
  const digits = Math.log10(perUnit);
  return `${(amountMinor / perUnit).toFixed(digits)} ${currency.toUpperCase()}`;
}
