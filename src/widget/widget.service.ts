// The signup-form widget's rules (issue 24, docs/widget.md): a publishable key's check from a
// visitor's browser, and its confirmation by the form's backend with a secret key. Refusals are
// thrown as domain failures (ADR 0075: origin_not_allowed, captcha_failed, rate_limited, invalid);
// src/http/errors.ts maps them. Order of a check: origin, CAPTCHA, per-IP and per-address rates,
// distinct addresses per IP per day, then the charge (once per address, key and UTC day, counted
// against the key's daily cap), then the answer within the deadline. A charge the balance cannot
// cover answers unknown/unavailable: the form is never blocked because the customer ran out of
// credits. Every answer and refusal is counted where it is decided (widget-stats.ts).

import type { WidgetConfig } from "../config/widget-config.js";
import type { CreditsService } from "../credits/credits.service.js";
import { type KeyPolicy, originAllowed, type WidgetLimits } from "../keys/key-policy.js";
import type { KeysService } from "../keys/keys.service.js";
import { type DomainError, fail } from "../lib/errors.js";
import { Lru } from "../lib/lru.js";
import type { CaptchaVerifier } from "./captcha.js";
import type { WidgetChecker } from "./widget-checker.js";
import type { LimitName, LimitOutcome, Maybe, WidgetLimiter } from "./widget-limits.js";
import { flagReasonOf, type StatsMetric, type WidgetStatsRecorder } from "./widget-stats.js";
import { emailHashOf, readToken, signToken } from "./widget-token.js";
import { type QuickLook, quickLook, type WidgetVerdict } from "./widget-verdict.js";

/** Addresses whose quick look is kept: a form's visitor sends the same address on blur and on submit. */
const QUICK_LOOKS_KEPT = 10_000;

export interface WidgetServiceDeps {
  config: WidgetConfig;
  priceMilli: number;
  credits: CreditsService;
  keys: Pick<KeysService, "activeKeyOf">;
  checker: WidgetChecker;
  limiter: WidgetLimiter;
  captcha: CaptchaVerifier;
  stats: WidgetStatsRecorder;
  nowMs: () => number;
  /** A concurrent debit with the same idempotency key lost the race: already charged. */
  isUniqueViolation: (error: unknown) => boolean;
}

/** The publishable key a widget request came with, and the data space it acts on. */
export interface WidgetCaller {
  accountId: string;
  keyId: string;
  policy: KeyPolicy;
}

export interface WidgetCheckInput extends WidgetCaller {
  /** From Origin, else Referer; null when neither names one. */
  origin: string | null;
  ip: string;
  email: string;
  captchaToken: string | undefined;
}

export interface WidgetAnswer extends WidgetVerdict {
  token: string;
}

type TokenProblem = "forged" | "expired" | "email_mismatch" | "key_mismatch";

export interface WidgetConfirmation {
  email: string;
  keyId: string;
  checkedAt: string;
  /** true when the visitor's verdict was unknown and this one was looked up now. */
  fresh: boolean;
  verdict: WidgetVerdict;
}

/** The field a token problem is about, for the 422's field errors. */
const TOKEN_FIELDS: Record<TokenProblem, string> = {
  forged: "token",
  expired: "token",
  email_mismatch: "email",
  key_mismatch: "token",
};

function tokenRefused(problem: TokenProblem, message: string): DomainError {
  return fail({
    kind: "invalid",
    message,
    errors: [{ field: TOKEN_FIELDS[problem], message, type: problem }],
    details: { reason: problem },
  });
}

const UNAVAILABLE: WidgetVerdict = {
  status: "unknown",
  reason: "unavailable",
  didYouMean: null,
  disposable: null,
  role: null,
  free: null,
};

type ChargeOutcome = { kind: "charged" | "already" | "unpaid" } | Extract<LimitOutcome, { kind: "limited" }>;

const ALREADY: ChargeOutcome = Object.freeze({ kind: "already" });

export class WidgetService {
  constructor(private readonly deps: WidgetServiceDeps) {}

  /** Limits per policy object: a cached key keeps its policy object, so this is one lookup. */
  private readonly limitsByPolicy = new WeakMap<KeyPolicy, WidgetLimits>();

  /** A key's limits: its own where set, the configured defaults otherwise. */
  limitsOf(policy: KeyPolicy): WidgetLimits {
    let limits = this.limitsByPolicy.get(policy);
    if (!limits) {
      limits = { ...this.deps.config.defaults, ...(policy.widgetLimits ?? {}) };
      this.limitsByPolicy.set(policy, limits);
    }
    return limits;
  }

  /**
   * The page's origin when the key allows it; otherwise the refusal, counted against the key
   * (a forged or missing Origin, a page on another site, a preflight from one).
   */
  admitOrigin(caller: WidgetCaller, origin: string | null): string {
    if (origin !== null && originAllowed(caller.policy.allowedOrigins, origin)) return origin;
    this.count(caller, "cap:origin");
    throw fail({ kind: "origin_not_allowed", origin });
  }

  async check(input: WidgetCheckInput): Promise<WidgetAnswer> {
    const { policy, keyId, ip } = input;
    this.admitOrigin(input, input.origin);
    if (policy.captcha) {
      const captcha = await this.deps.captcha.verify(policy.captcha, input.captchaToken, ip);
      if (captcha.kind === "failed") {
        this.count(input, "cap:captcha");
        throw fail({ kind: "captcha_failed", reason: captcha.reason });
      }
    }
    const limits = this.limitsOf(policy);
    const { limiter } = this.deps;
    const email = input.email.trim();
    const emailHash = emailHashOf(email);
    // The limiter answers at once in memory and with a promise from Redis: only a promise is
    // awaited (ADR 0057).
    const perIp = limiter.take("perIpPerMinute", limits.perIpPerMinute, `${keyId}|${ip}`);
    this.refuseWhenLimited(input, perIp instanceof Promise ? await perIp : perIp);
    const perEmail = limiter.take("perEmailPerMinute", limits.perEmailPerMinute, `${keyId}|${emailHash}`);
    this.refuseWhenLimited(input, perEmail instanceof Promise ? await perEmail : perEmail);
    const { day, endMs } = limiter.day();
    const ipScope = `ip:${keyId}:${day}:${ip}`;
    const newForIp = limiter.marks.markFirst(ipScope, emailHash, endMs);
    if (newForIp instanceof Promise ? await newForIp : newForIp) {
      const taken = await limiter.take(
        "distinctEmailsPerIpPerDay",
        limits.distinctEmailsPerIpPerDay,
        `${keyId}|${ip}`,
      );
      if (taken.kind === "limited") await limiter.marks.unmark(ipScope, emailHash);
      this.refuseWhenLimited(input, taken);
    }

    let verdict: WidgetVerdict;
    const counted: StatsMetric[] = ["checks"];
    // One look at the address serves the charge decision and the answer (it was half of a check's CPU).
    const quick = this.quickLookOf(email);
    const parses = quick.parsed !== null;
    if (policy.mode === "live" && parses) {
      const charging = this.chargeOnce(input.accountId, keyId, emailHash, limits.dailyCap, day, endMs);
      const charge = charging instanceof Promise ? await charging : charging;
      this.refuseWhenLimited(input, charge);
      if (charge.kind === "charged" || charge.kind === "unpaid") counted.push(charge.kind);
      verdict =
        charge.kind === "unpaid"
          ? UNAVAILABLE
          : (this.deps.checker.known("live", quick) ??
            (await this.deps.checker.look(email, this.deps.config.deadlineMs, "live", quick)));
    } else {
      verdict =
        this.deps.checker.known(policy.mode, quick) ??
        (await this.deps.checker.look(email, this.deps.config.deadlineMs, policy.mode, quick));
    }
    if (verdict.status === "unknown") counted.push("unknown");
    const flag = flagReasonOf(verdict);
    if (flag !== null) counted.push(`flag:${flag}`);
    this.deps.stats.count(input.accountId, keyId, ...counted);
    const now = this.deps.nowMs();
    const token = signToken(this.deps.config.tokenSecret, {
      keyId,
      accountId: input.accountId,
      emailHash,
      expiresAtMs: now + this.deps.config.tokenTtlMs,
      checkedAtMs: now,
      mode: policy.mode,
      verdict,
    });
    // Written out, not spread: a spread's copy takes its hidden class from V8's shared root (ADR 0057).
    const { status, reason, didYouMean, disposable, role, free } = verdict;
    return { status, reason, didYouMean, disposable, role, free, token };
  }

  /**
   * The address's quick look (syntax, typo, lists: no network, and the same answer every time for
   * the same text), kept for recent addresses and frozen, since callers share it.
   */
  private quickLookOf(email: string): QuickLook {
    let quick = this.quickLooks.get(email);
    if (quick === undefined) {
      quick = quickLook(email);
      if (quick.parsed) Object.freeze(quick.parsed);
      Object.freeze(quick.kind === "answer" ? quick.verdict : quick.facts);
      this.quickLooks.set(email, Object.freeze(quick));
    }
    return quick;
  }

  private readonly quickLooks = new Lru<string, QuickLook>(QUICK_LOOKS_KEPT);

  private count(caller: WidgetCaller, metric: StatsMetric): void {
    this.deps.stats.count(caller.accountId, caller.keyId, metric);
  }

  /** A limit that refused: counted against the key, then thrown as the 429 it is. */
  private refuseWhenLimited(caller: WidgetCaller, outcome: LimitOutcome | ChargeOutcome): void {
    if (outcome.kind !== "limited") return;
    const { limit, points, retryAfterMs } = outcome;
    this.count(caller, `cap:${limit satisfies LimitName}`);
    throw fail({
      kind: "rate_limited",
      label: `widget ${limit} (${points})`,
      retryAfterMs,
      details: { limit, points },
    });
  }

  /**
   * Charges the address once per key and UTC day; the mark is dropped again when nothing was
   * charged. Already charged today is known at once in memory (no promise).
   */
  private chargeOnce(
    accountId: string,
    keyId: string,
    emailHash: string,
    dailyCap: number,
    day: string,
    endMs: number,
  ): Maybe<ChargeOutcome> {
    const scope = `charge:${keyId}:${day}`;
    const first = this.deps.limiter.marks.markFirst(scope, emailHash, endMs);
    if (first instanceof Promise)
      return first.then((isFirst) =>
        isFirst ? this.chargeFirst(accountId, keyId, emailHash, dailyCap, day, scope) : ALREADY,
      );
    return first ? this.chargeFirst(accountId, keyId, emailHash, dailyCap, day, scope) : ALREADY;
  }

  /** The first check of the address today for this key: the daily cap, then the debit. */
  private async chargeFirst(
    accountId: string,
    keyId: string,
    emailHash: string,
    dailyCap: number,
    day: string,
    scope: string,
  ): Promise<ChargeOutcome> {
    const { limiter } = this.deps;
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
      if (this.deps.isUniqueViolation(error)) return ALREADY;
      await limiter.marks.unmark(scope, emailHash);
      throw error;
    }
  }

  /**
   * The verdict a visitor saw, for the form's backend (a secret key of the same data space). Free.
   * A forged, expired or mismatched token is an `invalid` failure naming the problem.
   */
  async confirm(accountId: string, token: string, email: string): Promise<WidgetConfirmation> {
    const reading = readToken(this.deps.config.tokenSecret, token, this.deps.nowMs());
    if (reading.kind === "forged")
      throw tokenRefused("forged", "The token was not issued by this service or was altered");
    if (reading.kind === "expired")
      throw tokenRefused("expired", `The token expired at ${reading.expiredAt}`);
    const { claims } = reading;
    if (claims.emailHash !== emailHashOf(email))
      throw tokenRefused("email_mismatch", "The token was issued for another email address");
    const key =
      claims.accountId === accountId ? await this.deps.keys.activeKeyOf(accountId, claims.keyId) : undefined;
    if (!key)
      throw tokenRefused(
        "key_mismatch",
        "The token was issued for a publishable key that is not an active key of this account",
      );
    const fresh = claims.verdict.status === "unknown";
    const verdict = fresh
      ? await this.deps.checker.look(email.trim(), this.deps.config.deadlineMs, key.mode)
      : claims.verdict;
    return { email: email.trim(), keyId: claims.keyId, checkedAt: claims.checkedAt, fresh, verdict };
  }
}
