// Meters the services main.ts builds without teaching them about Prometheus: each function wraps
// one method of an instance (or the handlers of the job catalog) and counts its outcomes.
import type { VerifyOptions } from "../checks/email/email.types.js";
import type { WebsiteCheckResult } from "../checks/website/website.types.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { JobDefinition } from "../jobs/catalog.js";
import type { Metrics } from "./metrics.js";

interface WebsiteChecker {
  check(input: string): Promise<Pick<WebsiteCheckResult, "status">>;
}

interface EmailVerifier {
  verify(email: string, options?: VerifyOptions): Promise<{ status: string }>;
}

/** Counts checks by verdict. verifyMany goes through verify, so batches are counted too. */
export function meterChecks(
  metrics: Metrics,
  engines: { website: WebsiteChecker; email: EmailVerifier },
): void {
  const { website, email } = engines;
  const check = website.check.bind(website);
  website.check = async (input) => {
    const result = await check(input);
    metrics.checks.inc({ kind: "website", verdict: result.status });
    return result;
  };
  const verify = email.verify.bind(email);
  // The options carry a background job's budget: they must reach the engine.
  email.verify = async (address, options) => {
    const verdict = await verify(address, options);
    metrics.checks.inc({ kind: "email", verdict: verdict.status });
    return verdict;
  };
}

/** Counts debited milli-credits. A debit is counted when it is written: one whose transaction a
 *  later refusal rolls back (a batch over its limits) is counted too; the ledger stays the exact
 *  record. A retried job's idempotent re-debit is not counted again. */
export function meterCredits(metrics: Metrics, credits: Pick<CreditsService, "debitWithin">): void {
  const debitWithin = credits.debitWithin.bind(credits);
  credits.debitWithin = async (trx, request) => {
    const outcome = await debitWithin(trx, request);
    if (outcome.kind === "debited" && !outcome.alreadyApplied)
      metrics.creditsSpentMilli.inc(request.amountMilli);
    return outcome;
  };
}

/** Wraps every handler of the catalog: attempts by outcome, their duration, and how many run in
 *  this process now (which worker holds a job: the scale tests read it). */
export function meterJobs(metrics: Metrics, catalog: readonly JobDefinition[]): JobDefinition[] {
  return catalog.map((definition) => {
    const queue = definition.name;
    const running = metrics.jobsRunning.labels({ queue });
    running.set(0);
    return {
      ...definition,
      handler: async (job) => {
        const stop = metrics.jobAttemptDuration.startTimer({ queue });
        running.inc();
        try {
          await definition.handler(job);
          metrics.jobAttempts.inc({ queue, outcome: "completed" });
        } catch (error) {
          metrics.jobAttempts.inc({ queue, outcome: "failed" });
          throw error;
        } finally {
          running.dec();
          stop();
        }
      },
    };
  });
}
