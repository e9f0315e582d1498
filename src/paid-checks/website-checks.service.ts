// POST /v1/check-website and POST /v1/check (spec "Website check"): charge the price upfront, then
// run the check synchronously. The HTTP route, the CLI and jobs call this, never the engine and the
// ledger separately, so a check is never run unpaid nor paid twice.

import type { WebsiteChecker, WebsiteCheckResult } from "../checks/website/website.types.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { WebsiteNormalizer } from "../leads/lead-fields.js";
import { isTestSpace } from "../lib/data-space.js";
import { fail, invalid } from "../lib/errors.js";

export interface WebsiteChecksDeps {
  credits: CreditsService;
  website: WebsiteChecker;
  normalizeWebsite: WebsiteNormalizer;
  priceMilli: number;
}

export interface WebsiteCheck {
  result: WebsiteCheckResult;
  chargedMilli: number;
  balanceMilli: number;
}

export class WebsiteChecksService {
  constructor(private readonly deps: WebsiteChecksDeps) {}

  /** Normalizes `input`, debits the check's price and runs it. A failed check is still a paid
   *  answer (an inactive site is a result), so nothing is refunded. Refuses (nothing charged) a
   *  website it cannot check (`invalid`) and a balance that cannot pay (`insufficient_credits`). */
  async check(accountId: string, input: string): Promise<WebsiteCheck> {
    const normalized = this.deps.normalizeWebsite(input);
    if (!normalized.ok) throw invalid([{ field: "website", message: normalized.message, type: "format" }]);
    const { priceMilli } = this.deps;
    const { outcome } = await this.deps.credits.debit({
      accountId,
      amountMilli: priceMilli,
      reason: "Website check",
      reference: normalized.url,
    });
    if (outcome.kind === "insufficient_credits") throw fail(outcome);
    const result = await this.deps.website.check(input, { accountId });
    // A test data space is never charged (ADR 0051).
    const chargedMilli = isTestSpace(accountId) ? 0 : priceMilli;
    return { result, chargedMilli, balanceMilli: outcome.balanceMilli };
  }
}
