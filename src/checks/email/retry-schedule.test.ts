import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EMAIL_JOB_LIMIT_MS, nextRetryDelayMs, retrySchedule } from "./retry-schedule.js";

describe("retrySchedule", () => {
  it("never retries before the server's delay and fits every attempt in the 5-minute job limit", () => {
    for (const retryAfterMs of [1_000, 30_000, 60_000, 120_000]) {
      const attemptBudgetMs = 20_000;
      const delays = retrySchedule({ retryAfterMs, attemptBudgetMs });
      assert.ok(delays.length > 0, `some retry fits after ${retryAfterMs}`);
      assert.ok(delays.every((d) => d >= Math.min(retryAfterMs, delays[0]!)));
      assert.ok(delays[0]! >= retryAfterMs);
      const total = delays.reduce((t, d) => t + d + attemptBudgetMs, 0);
      assert.ok(total <= EMAIL_JOB_LIMIT_MS, `total ${total}`);
    }
  });

  it("backs off between retries", () => {
    const delays = retrySchedule({ retryAfterMs: 10_000, attemptBudgetMs: 5_000 });
    assert.ok(delays.length >= 3);
    assert.ok(delays[1]! > delays[0]!);
  });

  it("gives up when the delay asked for no longer fits", () => {
    assert.deepEqual(retrySchedule({ retryAfterMs: 300_000 }), []);
    assert.deepEqual(retrySchedule({ retryAfterMs: 60_000, elapsedMs: 250_000 }), []);
  });

  it("plans the next retry from the time already spent", () => {
    assert.equal(nextRetryDelayMs({ retryAfterMs: 60_000, retry: 0, elapsedMs: 10_000 }), 60_000);
    assert.equal(nextRetryDelayMs({ retryAfterMs: 60_000, retry: 1, elapsedMs: 100_000 }), 90_000);
    assert.equal(nextRetryDelayMs({ retryAfterMs: 60_000, retry: 2, elapsedMs: 280_000 }), undefined);
  });
});
