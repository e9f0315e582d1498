import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PacedRun } from "./concurrency.js";

const failOnError = (error: unknown) => assert.fail(`unexpected run failure: ${String(error)}`);

/** A task whose runs are counted and end when the test says so. */
function gatedTask() {
  const ends: (() => void)[] = [];
  return {
    runs: () => ends.length,
    task: () => new Promise<void>((resolve) => ends.push(resolve)),
    /** Ends the latest run and lets its follow-up be scheduled. */
    async finish() {
      ends.at(-1)!();
      await new Promise((r) => setImmediate(r));
    },
  };
}

describe("PacedRun", () => {
  it("runs once for requests made before it starts, and once more for requests made while it runs", async () => {
    const gate = gatedTask();
    const paced = new PacedRun(gate.task, { onError: failOnError });
    paced.request();
    assert.equal(gate.runs(), 1, "no delay: the first request runs at once");
    for (let i = 0; i < 50; i++) paced.request();
    assert.equal(gate.runs(), 1);
    await gate.finish();
    assert.equal(gate.runs(), 2, "one follow-up run covers the 50");
    await gate.finish();
    assert.equal(gate.runs(), 2, "nothing asked since: no third run");
    await paced.close();
  });

  it("waits delayMs after the first request, gathering the others", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const gate = gatedTask();
    const paced = new PacedRun(gate.task, { delayMs: 200, onError: failOnError });
    for (let i = 0; i < 10; i++) paced.request();
    t.mock.timers.tick(199);
    assert.equal(gate.runs(), 0);
    t.mock.timers.tick(1);
    assert.equal(gate.runs(), 1);
    await gate.finish();
    await paced.close();
  });

  it("starts runs no closer than minIntervalMs", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    let now = 1_000;
    const gate = gatedTask();
    const paced = new PacedRun(gate.task, { minIntervalMs: 20, onError: failOnError, now: () => now });
    paced.request();
    await gate.finish();
    now += 5;
    paced.request();
    assert.equal(gate.runs(), 1, "5 ms after the last start: waits");
    t.mock.timers.tick(14);
    assert.equal(gate.runs(), 1);
    t.mock.timers.tick(1);
    assert.equal(gate.runs(), 2);
    await gate.finish();
    now += 100;
    paced.request();
    assert.equal(gate.runs(), 3, "after a quiet spell: at once");
    await gate.finish();
    await paced.close();
  });

  it("reports a failed run and runs again on the next request; close waits for the run and starts no more", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    let release = () => {};
    const paced = new PacedRun(
      async () => {
        calls++;
        if (calls === 1) throw new Error("boom");
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      },
      { onError: (error) => errors.push(error) },
    );
    paced.request();
    await new Promise((r) => setImmediate(r));
    assert.equal((errors[0] as Error).message, "boom");
    paced.request();
    assert.equal(calls, 2);
    let closed = false;
    const closing = paced.close().then(() => {
      closed = true;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(closed, false, "the run under way is awaited");
    release();
    await closing;
    paced.request();
    assert.equal(calls, 2, "closed: no more runs");
  });
});
