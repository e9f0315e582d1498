// The signup-form widget's rules (issue 24, docs/widget.md): a publishable key's check from a
// visitor's browser, and its confirmation by the form's backend with a secret key. Outcomes come
// back as values; src/widget/widget.routes.ts maps them to HTTP. Order of a check: origin, CAPTCHA,
// per-IP and per-address rates, distinct addresses per IP per day, then the charge (once per
// address, key and UTC day, counted against the key's daily cap), then the answer within the
// deadline. A charge the balance cannot cover answers unknown/unavailable: the form is never
// blocked because the customer ran out of credits.

import type { WidgetConfig } from "../config/widget-config.js";
import type { CreditsService } from "../credits/credits.service.js";
import { type KeyPolicy, originAllowed, type WidgetLimits } from "../keys/key-policy.js";
import type { KeysService } from "../keys/keys.service.js";
import type { CaptchaVerifier } from "./captcha.js";
import type { WidgetChecker } from "./widget-checker.js";
import type { LimitName, WidgetLimiter } from "./widget-limits.js";
import { emailHashOf, readToken, signToken } from "./widget-token.js";
import { quickLook, type WidgetVerdict } from "./widget-verdict.js";

export interface WidgetServiceDeps {
  config: WidgetConfig;
  priceMilli: number;
  credits: CreditsService;
  keys: KeysService;
  checker: WidgetChecker;
  limiter: WidgetLimiter;
  captcha: CaptchaVerifier;
  nowMs: () => number;
  /** A concurrent debit with the same idempotency key lost the race: already charged. */
  isUniqueViolation: (error: unknown) => boolean;
}

export interface WidgetCheckInput {
  accountId: string;
  keyId: string;
  policy: KeyPolicy;
  /** From Origin, else Referer; null when neither names one. */
  origin: string | null;
  ip: string;
  email: string;
  captchaToken: string | undefined;
}

interface WidgetAnswer extends WidgetVerdict {
  token: string;
}

export type WidgetCheckOutcome =
  | { kind: "answered"; answer: WidgetAnswer; charged: boolean }
  | { kind: "origin_not_allowed"; origin: string | null }
  | { kind: "captcha_failed"; reason: string }
  | { kind: "limited"; limit: LimitName; points: number; retryAfterMs: number };

type TokenProblem = "forged" | "expired" | "email_mismatch" | "key_mismatch";

export type WidgetConfirmOutcome =
  | {
      kind: "confirmed";
      email: string;
      keyId: string;
      checkedAt: string;
      /** true when the visitor's verdict was unknown and this one was looked up now. */
      fresh: boolean;
      verdict: WidgetVerdict;
    }
  | { kind: "token_refused"; problem: TokenProblem; message: string };

const UNAVAILABLE: WidgetVerdict = {
  status: "unknown",
  reason: "unavailable",
  didYouMean: null,
  disposable: null,
  role: null,
  free: null,
};

export class WidgetService {
  constructor(private readonly deps: WidgetServiceDeps) {}

  /** A key's limits: its own where set, the configured defaults otherwise. */
  limitsOf(policy: KeyPolicy): WidgetLimits {
    return { ...this.deps.config.defaults, ...(policy.widgetLimits ?? {}) };
  }

  originAllowed(policy: KeyPolicy, origin: string | null): boolean {
    return origin !== null && originAllowed(policy.allowedOrigins, origin);
  }

  async check(input: WidgetCheckInput): Promise<WidgetCheckOutcome> {
    const { policy, keyId, ip } = input;
    if (!this.originAllowed(policy, input.origin))
      return { kind: "origin_not_allowed", origin: input.origin };
    if (policy.captcha) {
      const captcha = await this.deps.captcha.verify(policy.captcha, input.captchaToken, ip);
      if (captcha.kind === "failed") return { kind: "captcha_failed", reason: captcha.reason };
    }
    const limits = this.limitsOf(policy);
    const { limiter } = this.deps;
    const email = input.email.trim();
    const emailHash = emailHashOf(email);
    for (const [limit, subject] of [
      ["perIpPerMinute", `${keyId}|${ip}`],
      ["perEmailPerMinute", `${keyId}|${emailHash}`],
    ] as const) {
      const taken = await limiter.take(limit, limits[limit], subject);
      if (taken.kind === "limited") return taken;
    }
    const { day, endMs } = limiter.day();
    const ipScope = `ip:${keyId}:${day}:${ip}`;
    if (await limiter.marks.markFirst(ipScope, emailHash, endMs)) {
      const taken = await limiter.take(
        "distinctEmailsPerIpPerDay",
        limits.distinctEmailsPerIpPerDay,
        `${keyId}|${ip}`,
      );
      if (taken.kind === "limited") {
        await limiter.marks.unmark(ipScope, emailHash);
        return taken;
      }
    }

    let charged = false;
    let verdict: WidgetVerdict;
    const parses = quickLook(email).parsed !== null;
    if (policy.mode === "live" && parses) {
      const charge = await this.chargeOnce(input.accountId, keyId, emailHash, limits.dailyCap, day, endMs);
      if (charge.kind === "limited") return charge;
      charged = charge.kind === "charged";
      verdict =
        charge.kind === "unpaid"
          ? UNAVAILABLE
          : await this.deps.checker.look(email, this.deps.config.deadlineMs, "live");
    } else {
      verdict = await this.deps.checker.look(email, this.deps.config.deadlineMs, policy.mode);
    }
    const now = this.deps.nowMs();
    const token = signToken(this.deps.config.tokenSecret, {
      keyId,
      accountId: input.accountId,
      emailHash,
      expiresAtMs: now + this.deps.config.tokenTtlMs,
      checkedAt: new Date(now).toISOString(),
      mode: policy.mode,
      verdict,
    });
    return { kind: "answered", answer: { ...verdict, token }, charged };
  }

  /** Charges the address once per key and UTC day; the mark is dropped again when nothing was charged. */
  private async chargeOnce(
    accountId: string,
    keyId: string,
    emailHash: string,
    dailyCap: number,
    day: string,
    endMs: number,
  ): Promise<
    | { kind: "charged" | "already" | "unpaid" }
    | { kind: "limited"; limit: LimitName; points: number; retryAfterMs: number }
  > {
    const scope = `charge:${keyId}:${day}`;
    const { limiter } = this.deps;
    if (!(await limiter.marks.markFirst(scope, emailHash, endMs))) return { kind: "already" };
    const capped = await limiter.take("dailyCap", dailyCap, keyId);
    if (capped.kind === "limited") {
      await limiter.marks.unmark(scope, emailHash);
      return capped;
    }
    try {
      const { outcome } = await this.deps.credits.debit({
        accountId,
        amountMilli: this.deps.priceMilli,
        reason: "Widget email check",
        reference: keyId,
        idempotencyKey: `widget:${keyId}:${day}:${emailHash.slice(0, 40)}`,
      });
      if (outcome.kind === "debited") return { kind: outcome.alreadyApplied ? "already" : "charged" };
      await limiter.marks.unmark(scope, emailHash);
      return { kind: "unpaid" };
    } catch (error) {
      if (this.deps.isUniqueViolation(error)) return { kind: "already" };
      await limiter.marks.unmark(scope, emailHash);
      throw error;
    }
  }

  /** The verdict a visitor saw, for the form's backend (a secret key of the same account). Free. */
  async confirm(accountId: string, token: string, email: string): Promise<WidgetConfirmOutcome> {
    const reading = readToken(this.deps.config.tokenSecret, token, this.deps.nowMs());
    if (reading.kind === "forged")
      return {
        kind: "token_refused",
        problem: "forged",
        message: "The token was not issued by this service or was altered",
      };
    if (reading.kind === "expired")
      return {
        kind: "token_refused",
        problem: "expired",
        message: `The token expired at ${reading.expiredAt}`,
      };
    const { claims } = reading;
    if (claims.emailHash !== emailHashOf(email))
      return {
        kind: "token_refused",
        problem: "email_mismatch",
        message: "The token was issued for another email address",
      };
    const key =
      claims.accountId === accountId ? await this.deps.keys.activeKeyOf(accountId, claims.keyId) : undefined;
    if (!key)
      return {
        kind: "token_refused",
        problem: "key_mismatch",
        message: "The token was issued for a publishable key that is not an active key of this account",
      };
    const fresh = claims.verdict.status === "unknown";
    const verdict = fresh
      ? await this.deps.checker.look(email.trim(), this.deps.config.deadlineMs, key.mode)
      : claims.verdict;
    return {
      kind: "confirmed",
      email: email.trim(),
      keyId: claims.keyId,
      checkedAt: claims.checkedAt,
      fresh,
      verdict,
    };
  }
}
