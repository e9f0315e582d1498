// Stripe through its official library: Checkout Sessions for one-off purchases and webhook
// signatures verified by the library (Stripe-Signature over the raw body, 5 minutes' tolerance).
// `apiUrl` points the library at another host (tests run a local fake of the endpoints it calls).
import Stripe from "stripe";
import type {
  CheckoutRequest,
  CheckoutSession,
  PaymentGateway,
  ProviderSession,
  SessionClaims,
  VerifyOutcome,
} from "./payment-gateway.js";

/** Metadata keys written on every session we create, for people reading the Stripe dashboard; the
 *  webhook only compares them with our record (checkout_sessions) and never grants from them. */
const ACCOUNT_KEY = "leadcheck_account_id";
const CREDITS_KEY = "leadcheck_milli_credits";

const SESSION_EVENTS = new Set(["checkout.session.completed", "checkout.session.async_payment_succeeded"]);

export class StripeGateway implements PaymentGateway {
  readonly provider = "stripe" as const;
  private readonly stripe: Stripe;

  constructor(
    private readonly options: { secretKey: string; webhookSecret: string; apiUrl?: string | undefined },
  ) {
    const target = options.apiUrl ? new URL(options.apiUrl) : undefined;
    this.stripe = new Stripe(options.secretKey, {
      maxNetworkRetries: 1,
      timeout: 20_000,
      ...(target
        ? {
            host: target.hostname,
            port: target.port || (target.protocol === "https:" ? 443 : 80),
            protocol: target.protocol === "https:" ? "https" : "http",
          }
        : {}),
    });
  }

  async createCheckout(request: CheckoutRequest): Promise<CheckoutSession> {
    const session = await this.stripe.checkout.sessions.create({
      mode: "payment",
      client_reference_id: request.accountId,
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: request.currency,
            unit_amount: request.amountMinor,
            product_data: { name: request.productName },
          },
        },
      ],
      metadata: { [ACCOUNT_KEY]: request.accountId, [CREDITS_KEY]: String(request.milliCredits) },
      success_url: request.successUrl,
      cancel_url: request.cancelUrl,
    });
    if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a URL`);
    return { id: session.id, url: session.url };
  }

  verifyEvent(rawBody: Buffer, signatureHeader: string | undefined): VerifyOutcome {
    if (!signatureHeader) return { ok: false, message: "Stripe-Signature header is missing" };
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signatureHeader, this.options.webhookSecret);
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
    if (!SESSION_EVENTS.has(event.type))
      return { ok: true, event: { kind: "other", id: event.id, type: event.type } };
    const session = event.data.object as Stripe.Checkout.Session;
    return {
      ok: true,
      event: {
        kind: "checkout_session",
        id: event.id,
        type: event.type,
        sessionId: session.id,
        claims: claimsOf(session),
      },
    };
  }

  async retrieveSession(sessionId: string): Promise<ProviderSession | null> {
    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.retrieve(sessionId);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return null;
      throw error;
    }
    const intent = session.payment_intent;
    return {
      id: session.id,
      accountId: session.client_reference_id,
      amountMinor: session.amount_total,
      currency: session.currency,
      paymentStatus: session.payment_status,
      paymentId: (typeof intent === "string" ? intent : intent?.id) ?? session.id,
    };
  }
}

function claimsOf(session: Stripe.Checkout.Session): SessionClaims {
  const metadata = session.metadata ?? {};
  const milli = Number(metadata[CREDITS_KEY]);
  return {
    accountId: metadata[ACCOUNT_KEY] || session.client_reference_id || undefined,
    milliCredits: Number.isSafeInteger(milli) && milli > 0 ? milli : undefined,
  };
}
