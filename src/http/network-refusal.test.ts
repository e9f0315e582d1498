import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../config/config.js";
import type { PathStatus } from "../net/network-health.js";
import { AppError } from "./app-error.js";
import type { NetworkRefusalDeps } from "./network-refusal.js";
import { refuseWhenDnsDown } from "./network-refusal.js";

const DOWN: PathStatus = { state: "down", since: "2026-11-28T08:00:00.000Z", reason: "every canary failed" };

function depsWith(env: Record<string, string>, dns: PathStatus | undefined): NetworkRefusalDeps {
  return {
    config: loadConfig(env),
    networkHealth: { dnsDown: () => dns, status: () => assert.fail("not asked") },
  } as unknown as NetworkRefusalDeps;
}

describe("refuseWhenDnsDown", () => {
  it("refuses with 503 SERVICE_UNAVAILABLE, the reason, since and a Retry-After of one interval", () => {
    const error = (() => {
      try {
        refuseWhenDnsDown(depsWith({ NETWORK_CHECK_INTERVAL_MS: "30000" }, DOWN), "email check", "acct_live");
      } catch (thrown) {
        return thrown;
      }
      return assert.fail("not refused");
    })();
    assert.ok(error instanceof AppError);
    assert.equal(error.status, 503);
    assert.equal(error.code, "SERVICE_UNAVAILABLE");
    assert.deepEqual(error.details, {
      reason: "resolver_unavailable",
      network: "dns",
      since: DOWN.since,
      status: "/v1/status",
    });
    assert.match(
      error.message,
      /email check cannot start.*every canary failed.*Nothing was charged.*DNS_SERVERS/,
    );
    assert.deepEqual(error.headers, { "Retry-After": "30" });
  });

  it("lets the check run while DNS is ok or unknown, or when REFUSE_WHEN_NETWORK_DOWN=false", () => {
    refuseWhenDnsDown(depsWith({}, undefined), "email check", "acct_live");
    refuseWhenDnsDown(depsWith({ REFUSE_WHEN_NETWORK_DOWN: "false" }, DOWN), "email check", "acct_live");
  });
});
