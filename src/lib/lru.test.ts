import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Lru } from "./lru.js";

describe("Lru", () => {
  it("keeps at most its bound, forgetting the least recently used first", () => {
    const lru = new Lru<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    assert.equal(lru.get("a"), 1); // a is now the most recent
    lru.set("c", 3); // drops b
    assert.equal(lru.size, 2);
    assert.equal(lru.get("b"), undefined);
    assert.equal(lru.get("a"), 1);
    assert.equal(lru.get("c"), 3);
  });

  it("replaces a value without growing", () => {
    const lru = new Lru<string, number>(2);
    lru.set("a", 1);
    lru.set("a", 2);
    lru.set("b", 3);
    assert.equal(lru.size, 2);
    assert.equal(lru.get("a"), 2);
  });

  it("refuses a bound under one", () => {
    assert.throws(() => new Lru(0), RangeError);
  });
});
