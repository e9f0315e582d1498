// A mocked clock for tests of deadlines (node:test `mock.timers`): real I/O (sockets to the local
// fakes) still runs between event-loop turns, and these helpers wait for it by turns, never by
// time, while the clock stands still; the test moves time on by hand.
import assert from "node:assert/strict";
import type { MockTimers, TestContext } from "node:test";

export async function ioTurns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** Turns of the event loop until `condition` holds; fails the test if it never does. */
export async function untilIo(condition: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 10_000; turn++) {
    if (condition()) return;
    await ioTurns(1);
  }
  assert.fail(`never happened: ${what}`);
}

/** Mocks timers and Date, from 0, for the rest of test `t` (node:test restores them after it). */
export function mockClock(t: TestContext): MockTimers {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval", "Date"], now: 0 });
  return t.mock.timers;
}
