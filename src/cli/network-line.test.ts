import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { networkLine } from "./network-line.js";

const path = (state: "ok" | "down" | "unknown", since: string | null = null) => ({
  state,
  since,
  reason: null,
});

describe("networkLine", () => {
  it("says nothing while every path is ok or unknown, or the status could not be read", () => {
    assert.equal(networkLine(undefined), undefined);
    assert.equal(
      networkLine({ network: { dns: path("ok"), smtp: path("unknown") }, checkedAt: null }),
      undefined,
    );
  });

  it("is one line naming what is down, since when, and what to set", () => {
    const line = networkLine({
      network: {
        dns: path("down", "2026-11-28T08:00:00.000Z"),
        smtp: path("down", "2026-11-28T07:00:00.000Z"),
      },
      checkedAt: "2026-11-28T08:01:00.000Z",
    });
    assert.ok(line);
    assert.doesNotMatch(line, /\n/);
    assert.match(line, /DNS down since 2026-11-28T08:00:00\.000Z: .*DNS_SERVERS/);
    assert.match(line, /SMTP egress down since 2026-11-28T07:00:00\.000Z: .*SMTP_SOCKS_PROXY/);
  });
});
