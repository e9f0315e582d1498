import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DEFAULT_RETRY_CONFIG,
  delayAfterAttempt,
  normalizeRetryConfig,
  type RetryConfigInput,
} from "./retry-config.js";

describe("retry_config normalization", () => {
  const accepted: [string, RetryConfigInput, { max_retries: number; retry_delays: number[] }][] = [
    [
      "nothing given: the spec's default 1 s, 5 s, 15 s",
      undefined,
      { max_retries: 3, retry_delays: [1000, 5000, 15000] },
    ],
    ["null", null, { max_retries: 3, retry_delays: [1000, 5000, 15000] }],
    ["an empty object", {}, { max_retries: 3, retry_delays: [1000, 5000, 15000] }],
    ["max_retries 0: one attempt only", { max_retries: 0 }, { max_retries: 0, retry_delays: [] }],
    [
      "fewer retries than the default delays",
      { max_retries: 2 },
      { max_retries: 2, retry_delays: [1000, 5000] },
    ],
    [
      "more retries than the default delays repeat the last",
      { max_retries: 5 },
      { max_retries: 5, retry_delays: [1000, 5000, 15000, 15000, 15000] },
    ],
    [
      "delays alone set the retry count",
      { retry_delays: [10, 20] },
      { max_retries: 2, retry_delays: [10, 20] },
    ],
    [
      "fewer delays than retries repeat the last",
      { max_retries: 4, retry_delays: [100, 200] },
      { max_retries: 4, retry_delays: [100, 200, 200, 200] },
    ],
    [
      "an empty delay list takes the defaults",
      { max_retries: 2, retry_delays: [] },
      { max_retries: 2, retry_delays: [1000, 5000] },
    ],
    [
      "the bounds themselves",
      { max_retries: 10, retry_delays: [0, 3_600_000] },
      { max_retries: 10, retry_delays: [0, 3_600_000, ...Array(8).fill(3_600_000)] },
    ],
  ];
  for (const [label, input, expected] of accepted) {
    it(`accepts ${label}`, () => {
      const result = normalizeRetryConfig(input);
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.config, expected);
    });
  }

  const refused: [string, RetryConfigInput, string][] = [
    ["more than 10 retries", { max_retries: 11 }, "retry_config.max_retries"],
    ["negative retries", { max_retries: -1 }, "retry_config.max_retries"],
    ["fractional retries", { max_retries: 1.5 }, "retry_config.max_retries"],
    ["a delay over an hour", { max_retries: 1, retry_delays: [3_600_001] }, "retry_config.retry_delays.0"],
    ["a negative delay", { max_retries: 2, retry_delays: [5, -1] }, "retry_config.retry_delays.1"],
    ["more delays than retries", { max_retries: 1, retry_delays: [1, 2] }, "retry_config.retry_delays"],
    ["eleven delays", { retry_delays: Array(11).fill(1) }, "retry_config.max_retries"],
  ];
  for (const [label, input, fieldName] of refused) {
    it(`refuses ${label}`, () => {
      const result = normalizeRetryConfig(input);
      assert.equal(result.ok, false);
      if (!result.ok)
        assert.ok(
          result.errors.some((e) => e.field === fieldName),
          JSON.stringify(result.errors),
        );
    });
  }
});

describe("retry schedule", () => {
  it("waits 1 s, 5 s and 15 s by default, four attempts in all", () => {
    const waits = [1, 2, 3, 4].map((attempt) => delayAfterAttempt({ ...DEFAULT_RETRY_CONFIG }, attempt));
    assert.deepEqual(waits, [1000, 5000, 15000, null]);
  });

  it("stops after the first attempt when max_retries is 0", () => {
    assert.equal(delayAfterAttempt({ max_retries: 0, retry_delays: [] }, 1), null);
  });
});
