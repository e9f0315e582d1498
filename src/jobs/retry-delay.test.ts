import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { retryDelayMs } from "./retry-delay.js";

describe("retryDelayMs", () => {
  const cases = [
    {
      name: "fixed delay ignores the retry number",
      backoff: false,
      delay: 500,
      retry: 5,
      random: 0.9,
      want: 500,
    },
    { name: "zero fixed delay retries at once", backoff: false, delay: 0, retry: 1, random: 0.5, want: 0 },
    {
      name: "first backoff retry waits the base delay at least",
      backoff: true,
      delay: 1000,
      retry: 1,
      random: 0,
      want: 1000,
    },
    {
      name: "jitter adds up to the base again",
      backoff: true,
      delay: 1000,
      retry: 1,
      random: 0.5,
      want: 1500,
    },
    { name: "each retry doubles the delay", backoff: true, delay: 1000, retry: 3, random: 0, want: 4000 },
    { name: "the exponent stops growing at 16", backoff: true, delay: 1, retry: 40, random: 0, want: 32768 },
    {
      name: "backoff from a zero delay starts at 1 ms",
      backoff: true,
      delay: 0,
      retry: 2,
      random: 0,
      want: 2,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = retryDelayMs({ retryDelayMs: c.delay, retryBackoff: c.backoff }, c.retry, () => c.random);
      assert.equal(got, c.want);
    });
  }
});
