// What a limit check answers when it refuses: a tagged value, never an HTTP error. Services return
// it as (part of) their outcome; where a refusal must also roll back a transaction, they throw it
// wrapped in `LimitRefused`. src/http/errors.ts (`refusalError`) is the one place that turns each
// kind into its status, error code, body and headers.

export type LimitRefusal =
  /** Not enough credits for an upfront charge (402). Amounts in milli-credits. */
  | { kind: "insufficient_credits"; requiredMilli: number; availableMilli: number }
  /** A per-key request rate limit (429). `label` names the limit, e.g. "60 requests per minute". */
  | { kind: "rate_limited"; label: string; retryAfterMs: number }
  /** Too many batches running for the account (429). */
  | { kind: "concurrent_batch_limit"; limit: number; retryAfterSeconds: number }
  /** The account's validations per UTC day are spent (429 until midnight). */
  | { kind: "daily_limit"; limit: number; retryAfterSeconds: number }
  /** The account has as many webhook endpoints as it may register (409 until one is deleted). */
  | { kind: "webhook_limit"; limit: number };

/** A refusal thrown from inside a transaction so that the transaction rolls back. */
export class LimitRefused extends Error {
  override name = "LimitRefused";
  constructor(readonly refusal: LimitRefusal) {
    super(`limit refused: ${refusal.kind}`);
  }
}
