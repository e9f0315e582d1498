import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { firstIdAt, newId } from "./ids.js";

const SHAPE = /^lead_[0-9a-hjkmnp-tv-z]{26}$/;
/** The generator is monotonic: times before one it has seen only increment that one's id. */
const later = Date.now() + 3_600_000;

describe("newId", () => {
  it("is the prefix and a lowercase ULID", () => {
    assert.match(newId("lead"), SHAPE);
  });

  it("sorts by creation time, and by creation order within one millisecond", () => {
    const ids = [
      newId("lead", later),
      newId("lead", later),
      newId("lead", later + 1),
      newId("lead", later + 1),
    ];
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
  });

  it("draws its random part evenly from all 32 symbols, across pool refills", () => {
    const counts = new Map<string, number>();
    // Different milliseconds: each id gets fresh random characters rather than an increment.
    for (let i = 0; i < 2_000; i++) {
      for (const c of newId("lead", later + 10 + i).slice(-16)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    assert.equal(counts.size, 32);
    const expected = (2_000 * 16) / 32;
    for (const [symbol, n] of counts) assert.ok(Math.abs(n - expected) < expected * 0.25, `${symbol}: ${n}`);
  });

  it("bounds the ids made before a time by firstIdAt", () => {
    const t = later + 100_000;
    const before = newId("evt", t - 1);
    const at = newId("evt", t);
    assert.ok(before < firstIdAt("evt", t));
    assert.ok(firstIdAt("evt", t) <= at);
  });
});
