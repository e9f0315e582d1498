// The domain's one failure union: what a service refuses, in its own words, with no HTTP in it
// (no statuses, error codes, bodies or headers). Services throw it as a `DomainError` (ADR 0075),
// so that a refusal inside a transaction rolls the transaction back on its way out;
// src/http/errors.ts (`failureError`) is the one place that turns each kind into its response.
import type { LimitRefusal } from "./limits.js";

export interface FieldError {
  field: string;
  message: string;
  type: string;
  /** The JSON path of the field (["body", "leads", 0, "email"]); by default "body" then the
   *  dotted `field`. */
  loc?: (string | number)[];
}

/** Facts a client can act on (the missing ids, the lead that holds the mailbox), shown as given. */
export type FailureDetails = Record<string, unknown>;

export type Failure =
  /** The resource does not exist for this account (another account's is the same failure). */
  | { kind: "not_found"; message: string; details?: FailureDetails }
  /** The input breaks a rule a schema cannot express; one entry per bad field. */
  | { kind: "invalid"; errors: FieldError[]; message?: string; details?: FailureDetails }
  /** A lead with the same mailbox already exists for the account. */
  | { kind: "duplicate"; message: string; details?: FailureDetails }
  /** The address was erased from this account, which refuses erased addresses (data protection). */
  | { kind: "suppressed"; message: string; details?: FailureDetails }
  /** The resource's state does not allow the change (inactive, used, already a member, changing). */
  | { kind: "conflict"; message: string; details?: FailureDetails }
  /** The acting member's role does not allow the change. */
  | { kind: "not_permitted"; message: string; details?: FailureDetails }
  /** The acting identity is not the one the thing is for (an invitation sent to another email). */
  | { kind: "wrong_identity"; message: string; details?: FailureDetails }
  /** A step of a flow that cannot go on and must start again (an unknown or used sign-in state,
   *  a code the identity provider refused); nothing in the request can be corrected. */
  | { kind: "rejected"; message: string; details?: FailureDetails }
  /** A backing service the change needs cannot be reached; retrying later may succeed. */
  | { kind: "unavailable"; message: string; retryAfterSeconds?: number; details?: FailureDetails }
  /** A publishable key used from a page outside its allowed origins (null: no Origin or Referer). */
  | { kind: "origin_not_allowed"; origin: string | null }
  /** The key requires a CAPTCHA and its token did not verify (`reason`: the provider's codes). */
  | { kind: "captcha_failed"; reason: string }
  | LimitRefusal;

/** A failure on its way out of a service. */
export class DomainError extends Error {
  override name = "DomainError";
  constructor(readonly failure: Failure) {
    super("message" in failure && failure.message ? failure.message : failure.kind);
  }
}

export const fail = (failure: Failure) => new DomainError(failure);

export const notFound = (what: string, details?: FailureDetails) =>
  fail({ kind: "not_found", message: `${what} not found`, details });

export const invalid = (errors: FieldError[], message?: string) => fail({ kind: "invalid", errors, message });

export const conflict = (message: string, details?: FailureDetails) =>
  fail({ kind: "conflict", message, details });

/** The failure's kind when `error` is a DomainError, else undefined. */
export function failureOf(error: unknown): Failure | undefined {
  return error instanceof DomainError ? error.failure : undefined;
}
