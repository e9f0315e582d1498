import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { type LimitOutcome, WidgetLimiter } from "./widget-limits.js";

/** rate-limiter-flexible's in-memory answer for the same hit: what the limiter counted with before. */
async function flexible(limiter: RateLimiterMemory, key: string): Promise<"ok" | number> {
  try {
    await limiter.consume(key);
    return "ok";
  } catch (rejection) {
    assert.ok(rejection instanceof RateLimiterRes);
    return rejection.msBeforeNext;
  }
}

const retryOf = (outcome: LimitOutcome) => (outcome.kind === "ok" ? "ok" : outcome.retryAfterMs);

describe("WidgetLimiter in memory", () => {
  it("refuses and tells the time until the next window exactly as rate-limiter-flexible did", async () => {
    const ours = new WidgetLimiter({ redis: undefined, nowMs: Date.now });
    const theirs = new RateLimiterMemory({ points: 3, duration: 60 });
    for (let i = 0; i < 6; i++) {
      const mine = ours.take("perIpPerMinute", 3, "key_1|1.2.3.4");
      assert.ok(!(mine instanceof Promise), "answered at once, without a promise");
      const expected = await flexible(theirs, "key_1|1.2.3.4");
      const got = retryOf(mine);
      if (expected === "ok") assert.equal(got, "ok", `hit ${i + 1}`);
      else {
        assert.equal(typeof got, "number", `hit ${i + 1}`);
        // Both count from the first hit; the two clocks are read a few ms apart.
        assert.ok(Math.abs((got as number) - expected) <= 20, `hit ${i + 1}: ${got} vs ${expected}`);
        assert.ok((got as number) > 59_000 && (got as number) <= 60_000);
      }
    }
  });

  it("opens a new window a duration after its first hit, per subject, and names the refused limit", () => {
    let now = Date.UTC(2026, 10, 28, 12);
    const limiter = new WidgetLimiter({ redis: undefined, nowMs: () => now });
    const take = (subject: string) => limiter.take("perEmailPerMinute", 2, subject) as LimitOutcome;
    assert.equal(take("a").kind, "ok");
    now += 30_000;
    assert.equal(take("a").kind, "ok");
    assert.deepEqual(take("a"), {
      kind: "limited",
      limit: "perEmailPerMinute",
      points: 2,
      retryAfterMs: 30_000,
    });
    assert.equal(take("b").kind, "ok", "another subject has its own window");
    now += 30_000;
    assert.equal(take("a").kind, "ok", "the window started at the first hit and is over");
  });

  it("counts daily limits per UTC day, until the day's end", () => {
    let now = Date.UTC(2026, 10, 28, 23, 59);
    const limiter = new WidgetLimiter({ redis: undefined, nowMs: () => now });
    const take = () => limiter.take("dailyCap", 1, "key_1") as LimitOutcome;
    assert.equal(take().kind, "ok");
    assert.equal(take().kind, "limited");
    now = Date.UTC(2026, 10, 29, 0, 1);
    assert.equal(take().kind, "ok", "a new day's counter");
  });
});
