import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryWindowCounters } from "./window-counters.js";

const MINUTE = { prefix: "m", durationS: 60 };
const HOUR = { prefix: "h", durationS: 3600 };

describe("MemoryWindowCounters", () => {
  it("counts every window of a hit, each from its own first hit", () => {
    let now = 1_000_000;
    const counters = new MemoryWindowCounters(() => now);
    assert.deepEqual(counters.hitNow("k", [MINUTE, HOUR]), [
      { consumed: 1, msBeforeNext: 60_000 },
      { consumed: 1, msBeforeNext: 3_600_000 },
    ]);
    now += 10_000;
    assert.deepEqual(counters.hitNow("k", [MINUTE, HOUR]), [
      { consumed: 2, msBeforeNext: 50_000 },
      { consumed: 2, msBeforeNext: 3_590_000 },
    ]);
    // Another key, and the same key in one window only, count on their own.
    assert.deepEqual(counters.hitNow("other", [MINUTE]), [{ consumed: 1, msBeforeNext: 60_000 }]);
    assert.deepEqual(counters.hitNow("k", [HOUR]), [{ consumed: 3, msBeforeNext: 3_590_000 }]);
  });

  it("starts a window again once it has run out, and keeps the longer one", () => {
    let now = 0;
    const counters = new MemoryWindowCounters(() => now);
    counters.hitNow("k", [MINUTE, HOUR]);
    counters.hitNow("k", [MINUTE, HOUR]);
    now = 60_000;
    assert.deepEqual(counters.hitNow("k", [MINUTE, HOUR]), [
      { consumed: 1, msBeforeNext: 60_000 },
      { consumed: 3, msBeforeNext: 3_540_000 },
    ]);
  });

  it("drops expired counters when it sweeps, so idle keys do not pile up", () => {
    let now = 0;
    const counters = new MemoryWindowCounters(() => now, 1_000);
    for (let i = 0; i < 100; i++) counters.hitNow(`visitor-${i}`, [MINUTE]);
    counters.hitNow("busy", [HOUR]);
    assert.equal(counters.size, 101);
    now = 61_000;
    counters.hitNow("busy", [HOUR]);
    assert.equal(counters.size, 1);
  });

  it("answers hit() with the same counts as hitNow()", async () => {
    const counters = new MemoryWindowCounters(() => 5);
    assert.deepEqual(await counters.hit("k", [MINUTE]), [{ consumed: 1, msBeforeNext: 60_000 }]);
    assert.deepEqual(counters.hitNow("k", [MINUTE]), [{ consumed: 2, msBeforeNext: 60_000 }]);
  });
});
