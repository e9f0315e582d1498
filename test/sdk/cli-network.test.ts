// `leadcheck check` while the server's resolver lies: the check is refused uncharged and one more
// stderr line says what is down, since when, and what the operator sets (DNS_SERVERS).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { type Harness, startHarness } from "../support/harness.js";
import { startProcess } from "../support/process.js";
import { NO_LIMITS } from "./sdk-support.js";

describe("leadcheck check while the server's DNS is down", () => {
  let net: FakeInternet;
  let h: Harness;
  let env: Record<string, string> = {};

  before(async () => {
    net = await startFakeInternet();
    h = await startHarness(
      "sqlite",
      { ...net.env, ...NO_LIMITS, NETWORK_CHECK_INTERVAL_MS: "0" },
      { workers: true },
    );
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    const url = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
    env = { LEADCHECK_URL: url, LEADCHECK_API_KEY: await h.apiKey("acct_cli_network"), NO_COLOR: "1" };
  });
  after(async () => {
    await h?.close();
    await net?.close();
  });

  it("prints the refusal and one line naming DNS_SERVERS; nothing is printed once DNS is back", async () => {
    net.dns.setMode("nxdomain");
    await h.services.networkHealth.runRound();
    const since = h.services.networkHealth.status().network.dns.since;
    const down = startProcess(["check", "email", "jane.doe@gmail.com"], env);
    assert.equal(await down.exitCode(), 1, down.output());
    assert.match(down.output(), /SERVICE_UNAVAILABLE, HTTP 503/);
    const lines = down
      .output()
      .split("\n")
      .filter((l) => l.includes("network is impaired"));
    assert.equal(lines.length, 1, down.output());
    assert.match(lines[0]!, new RegExp(`DNS down since ${since}: .*DNS_SERVERS`));

    net.dns.setMode("normal");
    await h.services.networkHealth.runRound();
    const up = startProcess(["check", "email", "alice@acme.test", "--timeout", "10"], env);
    assert.equal(await up.exitCode(), 0, up.output());
    assert.doesNotMatch(up.output(), /network is impaired/);
  });
});
