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

/** A checkout session the provider reports as finished, with what our metadata says it buys. */
export interface CompletedSession {
  sessionId: string;
  /** The provider's id of the money movement (Stripe: PaymentIntent id; the session id if none). */
  paymentId: string;
  /** "paid" grants; "unpaid" waits for an async payment to succeed (a later event). */
  paid: boolean;
  accountId: string | undefined;
  milliCredits: number | undefined;
  amountMinor: number;
  currency: string;
}

export type VerifiedEvent =
  | { kind: "session_paid_or_pending"; id: string; type: string; session: CompletedSession }
  | { kind: "other"; id: string; type: string };

export type VerifyOutcome = { ok: true; event: VerifiedEvent } | { ok: false; message: string };

export interface PaymentGateway {
  readonly provider: "stripe";
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  /** Checks the signature header over the exact bytes received. */
  verifyEvent(rawBody: Buffer, signatureHeader: string | undefined): VerifyOutcome;
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
