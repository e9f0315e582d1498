// What the payments service needs from a payment provider: create a hosted checkout for an amount,
// and turn a signed webhook delivery into a verified event (or refuse it). The Stripe implementation
// is stripe-gateway.ts; the service never sees the provider's library.

export interface CheckoutRequest {
  accountId: string;
  /** In the currency's smallest unit (cents for usd, yen for jpy). */
  amountMinor: number;
  currency: string;
  milliCredits: number;
  productName: string;
  successUrl: string;
  cancelUrl: string;
}

export interface CheckoutSession {
  id: string;
  url: string;
}

/**
 * A checkout session as the provider's API reports it when asked (never as an event carried it).
 * The webhook checks it against our own record before granting anything.
 */
export interface ProviderSession {
  id: string;
  /** The account the session was created for (Stripe: `client_reference_id`, fixed at creation). */
  accountId: string | null;
  /** What the buyer is charged, in the currency's smallest unit (Stripe: `amount_total`). */
  amountMinor: number | null;
  currency: string | null;
  /** Only "paid" grants; "unpaid" waits for an async payment to succeed (a later event); anything
   *  else (Stripe: "no_payment_required", or a value added later) is refused. */
  paymentStatus: string;
  /** The provider's id of the money movement (Stripe: PaymentIntent id; the session id if none). */
  paymentId: string;
}

/** What a signed event's payload claims about a session; logged when it disagrees, never obeyed. */
export interface SessionClaims {
  accountId: string | undefined;
  milliCredits: number | undefined;
}

type VerifiedEvent =
  | { kind: "checkout_session"; id: string; type: string; sessionId: string; claims: SessionClaims }
  | { kind: "other"; id: string; type: string };

export type VerifyOutcome = { ok: true; event: VerifiedEvent } | { ok: false; message: string };

export interface PaymentGateway {
  readonly provider: "stripe";
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  /** Checks the signature header over the exact bytes received. */
  verifyEvent(rawBody: Buffer, signatureHeader: string | undefined): VerifyOutcome;
  /** The session as the provider knows it now; null when the provider has no such session.
   *  Throws when the provider cannot be asked (the webhook answers 503, so the event is retried). */
  retrieveSession(sessionId: string): Promise<ProviderSession | null>;
}

/** Currencies whose smallest unit is the unit itself, and those with three decimals (Stripe's lists). */
const ZERO_DECIMAL = new Set("bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf".split(" "));
const THREE_DECIMAL = new Set("bhd jod kwd omr tnd".split(" "));

/** Smallest units in one whole unit of the currency. */
export function minorUnitsPerUnit(currency: string): number {
  const code = currency.toLowerCase();
  if (ZERO_DECIMAL.has(code)) return 1;
  if (THREE_DECIMAL.has(code)) return 1000;
  return 100;
}
