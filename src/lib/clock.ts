// The clock is injected everywhere time matters so tests can control it.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 UTC with milliseconds and `Z`: sorts lexicographically in time order. */
export function iso(date: Date): string {
  return date.toISOString();
}
