// What a limit check answers when it refuses: a tagged value, never an HTTP error. Limit
// refusals are part of the domain failure union (src/lib/errors.ts): a check returns one, and a
// service that must roll a transaction back throws it as a DomainError.

export type LimitRefusal =
  /** Not enough credits for an upfront charge. Amounts in milli-credits. */
  | { kind: "insufficient_credits"; requiredMilli: number; availableMilli: number }
  /** A per-key request rate limit. `label` names the limit, e.g. "60 requests per minute". */
  | {
      kind: "rate_limited";
      label: string;
      retryAfterMs: number;
      /** Which limit and its size, for a client that shows it (the widget's abuse limits). */
      details?: Record<string, unknown>;
    }
  /** Too many batches running for the account. */
  | { kind: "concurrent_batch_limit"; limit: number; retryAfterSeconds: number }
  /** The account's validations per UTC day are spent (refused until midnight). */
  | { kind: "daily_limit"; limit: number; retryAfterSeconds: number }
  /** The account has as many webhook endpoints as it may register (until one is deleted). */
  | { kind: "webhook_limit"; limit: number };
