// Shared pieces of the SDK tests.
import assert from "node:assert/strict";
import { LeadcheckError } from "../../sdk/src/index.js";
import { DEFAULT_ENDPOINT_LIMITS_PER_MINUTE } from "../../src/config/config.js";

/** Limits high enough that only the tests about limits meet them. */
export const NO_LIMITS = {
  RATE_LIMIT_PER_MINUTE: "100000",
  RATE_LIMIT_PER_HOUR: "100000",
  RATE_LIMIT_ENDPOINTS: Object.keys(DEFAULT_ENDPOINT_LIMITS_PER_MINUTE)
    .map((r) => `${r}=100000`)
    .join(","),
};

/** The LeadcheckError a call fails with, for assertions on its fields. */
export async function failure(call: Promise<unknown>): Promise<LeadcheckError> {
  const error = await call.then(
    () => assert.fail("expected the call to fail"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof LeadcheckError, `expected a LeadcheckError, got ${error}`);
  return error;
}
