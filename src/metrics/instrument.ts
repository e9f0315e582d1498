// Meters the services main.ts builds without teaching them about Prometheus. Engines and services
// take observer callbacks (`onChecked`, `onVerified`, `onDebited`, webhooks' `onAttempt`, the
// sweeper's `onClosed`); this file makes those callbacks. Nothing here replaces a method on a live
// object: a replaced method once dropped the website check's abort signal.
import type { EmailVerdict } from "../checks/email/email.types.js";
import type { WebsiteStatus } from "../checks/website/website.types.js";
import type { JobDefinition } from "../jobs/catalog.js";
import type { Metrics } from "./metrics.js";

/** Counts checks by verdict. verifyMany goes through verify, so batches are counted too. */
export function checkMeters(metrics: Metrics): {
  onChecked: (status: WebsiteStatus) => void;
  onVerified: (status: EmailVerdict["status"]) => void;
} {
  return {
    onChecked: (status) => metrics.checks.inc({ kind: "website", verdict: status }),
    onVerified: (status) => metrics.checks.inc({ kind: "email", verdict: status }),
  };
}

/** Counts debited milli-credits; CreditsService tells it only of debits written now (a refusal or
 *  a retried job's idempotent re-debit is not told). */
export function creditMeter(metrics: Metrics): (amountMilli: number) => void {
  return (amountMilli) => metrics.creditsSpentMilli.inc(amountMilli);
}

/** Counts webhook delivery attempts by outcome (the webhooks module's `onAttempt`). */
export function webhookMeter(metrics: Metrics): (outcome: string) => void {
  return (outcome) => metrics.webhookDeliveries.inc({ outcome });
}

/** Logs and counts each row the stalled-work sweeper closes (its `onClosed`). */
export function sweeperMeter(
  metrics: Metrics,
  logger: { warn(obj: object, msg: string): void },
): (kind: string, id: string, reason: string) => void {
  return (kind, id, reason) => {
    metrics.sweeperClosed.inc({ kind });
    logger.warn({ kind, id, reason }, "sweeper closed work left processing");
  };
}

/** A new catalog whose handlers are decorated (the definitions given are not changed): attempts by
 *  outcome, their duration, and how many run in this process now (which worker holds a job: the
 *  scale tests read it). */
export function meterJobs(metrics: Metrics, catalog: readonly JobDefinition[]): JobDefinition[] {
  return catalog.map((definition) => {
    const queue = definition.name;
    const running = metrics.jobsRunning.labels({ queue });
    running.set(0);
    return {
      ...definition,
      handler: async (...args) => {
        const stop = metrics.jobAttemptDuration.startTimer({ queue });
        running.inc();
        try {
          await definition.handler(...args);
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
