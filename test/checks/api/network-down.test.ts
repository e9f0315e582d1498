// The API while this service cannot see the world: the local DNS server is made to lie (NXDOMAIN
// for every name), then to drop every query, then fixed. Rounds run every 50 ms as in production
// (every minute there); the test waits for what they report, never for time.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../../support/db.js";
import { type FakeInternet, startFakeInternet } from "../../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../../support/harness.js";
import { waitFor } from "../../support/wait-for.js";

interface PathStatus {
  state: string;
  since: string | null;
  reason: string | null;
}
interface StatusBody {
  network: { dns: PathStatus; smtp: PathStatus };
  checkedAt: string | null;
}

for (const kind of dialects()) {
  describe(`network down (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let net: FakeInternet;
    let h: Harness;
    let key = "";
    const call = (method: "GET" | "POST", url: string, payload?: unknown) =>
      h.call(key, method, url, payload);
    const credits = async () => (await call("GET", "/v1/credits")).json().displayCredits as number;
    const status = async () => (await call("GET", "/v1/status")).json() as StatusBody;
    const untilDns = (state: string, match: RegExp = /./) =>
      waitFor(
        async () => {
          const s = await status();
          return s.network.dns.state === state && match.test(s.network.dns.reason ?? "ok") ? s : undefined;
        },
        `DNS ${state}`,
        10_000,
        20,
      );

    before(async () => {
      if (skip) return;
      net = await startFakeInternet({
        // The canaries this private resolver answers, as a working public one would.
        "gmail.com": { MX: [{ exchange: "mx.acme.test", priority: 5 }] },
        ".": { NS: ["a.root-servers.test"] },
      });
      h = await startHarness(
        kind,
        {
          ...net.env,
          ...UNLIMITED_RATE_ENV,
          DNS_CANARY_NAMES: "gmail.com,.",
          NETWORK_CHECK_INTERVAL_MS: "50",
          DNS_TIMEOUT_MS: "200",
          DNS_CANARY_TIMEOUT_MS: "200",
        },
        { websiteCa: net.ca, workers: true },
      );
      key = await h.apiKey("acct_network");
      await h.services.networkHealth.start();
    });
    after(async () => {
      await h?.close();
      await net?.close();
    });

    it("says ok for both paths once the first round passed", { skip }, async () => {
      const ok = await untilDns("ok");
      assert.equal(ok.network.smtp.state, "ok");
      assert.ok(ok.network.dns.since && ok.checkedAt);
      assert.equal((await h.app.inject({ method: "GET", url: "/v1/status" })).statusCode, 401);
    });

    it("behind a lying resolver: status and readiness say down since when, checks are 503 and uncharged", {
      skip,
    }, async () => {
      net.dns.setMode("nxdomain");
      const down = await untilDns("down", /NXDOMAIN/);
      assert.match(down.network.dns.since ?? "", /^\d{4}-\d\d-\d\dT.*Z$/);
      assert.match(down.network.dns.reason ?? "", /every canary/);
      const ready = await h.app.inject({ method: "GET", url: "/readiness" });
      assert.equal(ready.statusCode, 200, "DNS does not take the instance out of rotation");
      assert.equal(ready.json().details.network.dns.state, "down");
      assert.equal(ready.json().details.network.dns.since, down.network.dns.since);

      const before = await credits();
      const email = await call("POST", "/v1/check-email", { email: "jane.doe@gmail.com", timeout: 5 });
      assert.equal(email.statusCode, 503, email.body);
      assert.equal(email.json().error_code, "SERVICE_UNAVAILABLE");
      assert.equal(email.json().details.reason, "resolver_unavailable");
      assert.match(email.json().message, /DNS_SERVERS/);
      assert.ok(Number(email.headers["retry-after"]) >= 1);
      const site = await call("POST", "/v1/check", { domain: "gmail.com" });
      assert.equal(site.statusCode, 503);
      assert.equal(await credits(), before, "nothing was charged");
      // Bad input is still bad input.
      assert.equal((await call("POST", "/v1/check-email", { email: "jane doe@gmail.com" })).statusCode, 422);
    });

    it("behind the liar, work that would validate is 503 and uncharged; a lead without validation is stored", {
      skip,
    }, async () => {
      // Queued work that runs while DNS is down says resolver_unavailable through the engines' guard
      // (test/net/network-health.test.ts); here the requests that would start such work are refused.
      await untilDns("down");
      const before = await credits();
      const refused = [
        await call("POST", "/v1/leads", { email: "jane.doe@gmail.com", website: "https://gmail.com" }),
        await call("POST", "/v1/leads/bulk", { leads: [{ email: "ann@gmail.com" }] }),
        await call("POST", "/v1/batch", { domains: ["gmail.com", "acme.test"] }),
      ];
      for (const response of refused) {
        assert.equal(response.statusCode, 503, response.body);
        assert.equal(response.json().details.reason, "resolver_unavailable");
      }
      const stored = await call("POST", "/v1/leads", { email: "jane.doe@gmail.com", validate: false });
      assert.equal(stored.statusCode, 201, stored.body);
      assert.equal(stored.json().validationStatus, "new");
      const validate = await call("POST", "/v1/leads/validate", { leadIds: [stored.json().id] });
      assert.equal(validate.statusCode, 503, validate.body);
      assert.equal(await credits(), before, "nothing was charged");
    });

    it("with every query dropped: still down, and a check is refused at once", { skip }, async () => {
      net.dns.setMode("drop");
      await untilDns("down", /TIMEOUT/);
      const started = performance.now();
      const email = await call("POST", "/v1/check-email", { email: "jane.doe@gmail.com", timeout: 5 });
      assert.equal(email.statusCode, 503);
      assert.ok(performance.now() - started < 1000, "no lookup was waited for");
    });

    it("once the resolver is fixed the next round says ok, and checks run and are charged again", {
      skip,
    }, async () => {
      const down = await untilDns("down");
      net.dns.setMode("normal");
      const ok = await untilDns("ok");
      assert.ok(Date.parse(ok.network.dns.since ?? "") >= Date.parse(down.network.dns.since ?? ""));
      const before = await credits();
      const email = await call("POST", "/v1/check-email", { email: "alice@acme.test", timeout: 10 });
      assert.equal(email.statusCode, 200, email.body);
      assert.equal(email.json().reason, "deliverable");
      assert.equal(await credits(), before - 1);
    });
  });
}
