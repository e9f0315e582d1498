// When to retry a temporary answer (greylisting, 4xx) so every attempt fits in the email job's
// 5-minute limit. Greylisting servers accept a retry only after their delay, so no retry is
// scheduled earlier than the server asked for; later ones back off.
export const EMAIL_JOB_LIMIT_MS = 5 * 60_000;

export interface RetryScheduleInput {
  /** The verdict's retryAfterMs. */
  retryAfterMs: number;
  /** Time already spent by the job. */
  elapsedMs?: number;
  jobLimitMs?: number;
  /** Time one verification attempt may take (the engine's totalDeadlineMs). */
  attemptBudgetMs?: number;
  maxRetries?: number;
}

/** Delays in ms before each retry, measured from the end of the previous attempt. */
export function retrySchedule(input: RetryScheduleInput): number[] {
  const limit = input.jobLimitMs ?? EMAIL_JOB_LIMIT_MS;
  const budget = input.attemptBudgetMs ?? 20_000;
  const maxRetries = input.maxRetries ?? 4;
  const first = Math.max(1000, input.retryAfterMs);
  const delays: number[] = [];
  let t = input.elapsedMs ?? 0;
  let next = first;
  while (delays.length < maxRetries) {
    const room = limit - t - budget;
    if (room < first) break;
    const delay = Math.min(next, room);
    delays.push(delay);
    t += delay + budget;
    next = Math.round(next * 1.5);
  }
  return delays;
}

/** The delay before retry number `retry` (0-based), or undefined when no retry fits any more. */
export function nextRetryDelayMs(
  input: RetryScheduleInput & { retry: number; elapsedMs: number },
): number | undefined {
  // Plan from now with what is left: earlier attempts may have run shorter or longer than budgeted.
  const [delay] = retrySchedule({
    ...input,
    retryAfterMs: Math.round(input.retryAfterMs * 1.5 ** input.retry),
    maxRetries: Math.max(0, (input.maxRetries ?? 4) - input.retry),
  });
  return delay;
}
