// Resolver health against a real local DNS server made to lie (NXDOMAIN for every name) and to
// drop every query, and the checks seen through it: gmail.com is never invalid or dns_nxdomain
// behind such a resolver, whether the canaries noticed before the check or only after it.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { EmailEngine } from "../../src/checks/email/email-engine.js";
import { NetworkGuardedEmail, NetworkGuardedWebsite } from "../../src/checks/network-guard.js";
import { WebsiteEngine } from "../../src/checks/website/website.engine.js";
import { systemClock } from "../../src/lib/clock.js";
import { DnsResolver } from "../../src/net/dns.js";
import { HttpClient } from "../../src/net/http-client.js";
import {
  DEFAULT_CANARY_NAMES,
  type NetworkHealth as Health,
  NetworkHealth,
  type PathStatus,
  parseCanaries,
} from "../../src/net/network-health.js";
import { smtpConnector } from "../../src/net/smtp-client.js";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.js";
import { waitFor } from "../support/wait-for.js";

const ZONE = {
  // The canaries: what every working resolver answers.
  "gmail.com": { MX: [{ exchange: "gmail-smtp-in.l.google.com", priority: 5 }] },
  "outlook.com": { MX: [{ exchange: "outlook-com.olc.protection.outlook.com", priority: 5 }] },
  ".": { NS: ["a.root-servers.net"] },
};
const CANARIES = "gmail.com,outlook.com,.";
const DNS_TIMEOUT_MS = 300;

describe("parseCanaries", () => {
  it("asks the MX of a mail domain, the root's NS for '.', and any type named after a colon", () => {
    assert.deepEqual(parseCanaries("gmail.com, .,example.test:a"), [
      { name: "gmail.com", type: "MX" },
      { name: ".", type: "NS" },
      { name: "example.test", type: "A" },
    ]);
    assert.ok(parseCanaries(DEFAULT_CANARY_NAMES).length >= 4);
    assert.throws(() => parseCanaries("x.test:SOA"), /unknown record type/);
  });
});

describe("NetworkHealth against a local resolver", () => {
  let dns: TestDnsServer;
  const changes: PathStatus[] = [];
  let health: Health;
  let resolver: DnsResolver;
  let now = Date.parse("2026-01-01T00:00:00Z");
  const clock = { now: () => new Date(now) };

  before(async () => {
    dns = await startDnsServer(ZONE);
  });
  after(async () => {
    resolver.close();
    await dns.close();
  });
  beforeEach(() => {
    dns.setMode("normal");
    changes.length = 0;
    resolver?.close();
    resolver = new DnsResolver({
      servers: [dns.address],
      timeoutMs: DNS_TIMEOUT_MS,
      negativeTtlSeconds: 0,
      maxTtlSeconds: 0,
    });
    health = new NetworkHealth({
      resolver,
      resolverLabel: `DNS_SERVERS (${dns.address})`,
      canaries: parseCanaries(CANARIES),
      clock,
      intervalMs: 0,
      onChange: (_path, status) => changes.push(status),
    });
  });

  it("is unknown before the first round, and ok once a canary answers", async () => {
    assert.deepEqual(health.status().network.dns, { state: "unknown", since: null, reason: null });
    await health.runRound();
    assert.equal(health.status().network.dns.state, "ok");
    assert.equal(health.status().network.smtp.state, "unknown", "SMTP not watched here");
    assert.ok(health.status().checkedAt);
  });

  it("distrusts the resolver only when every canary fails", async () => {
    dns.set("outlook.com", { rcode: "SERVFAIL" });
    dns.set("gmail.com", {});
    await health.runRound();
    assert.equal(health.status().network.dns.state, "ok", "the root's NS still answered");
    dns.set(".", {});
    await health.runRound();
    assert.equal(health.status().network.dns.state, "down");
    for (const [name, entry] of Object.entries(ZONE)) dns.set(name, entry);
  });

  it("says down, with since and why, when the resolver lies, and ok again at the next round once fixed", async () => {
    await health.runRound();
    dns.setMode("nxdomain");
    now += 60_000;
    await health.runRound();
    const down = health.status().network.dns;
    assert.equal(down.state, "down");
    assert.equal(down.since, new Date(now).toISOString());
    assert.match(down.reason ?? "", /MX gmail\.com: NXDOMAIN/);
    assert.match(down.reason ?? "", /NS \.: NXDOMAIN/);
    now += 60_000;
    await health.runRound();
    assert.equal(health.status().network.dns.since, down.since, "since holds while the state holds");
    dns.setMode("normal");
    now += 60_000;
    await health.runRound();
    assert.deepEqual(health.status().network.dns, {
      state: "ok",
      since: new Date(now).toISOString(),
      reason: null,
    });
    assert.deepEqual(
      changes.map((c) => c.state),
      ["ok", "down", "ok"],
    );
  });

  it("says down when every query is dropped, within one lookup's budget", async () => {
    dns.setMode("drop");
    const started = performance.now();
    await health.runRound();
    assert.equal(health.status().network.dns.state, "down");
    assert.match(health.status().network.dns.reason ?? "", /TIMEOUT/);
    assert.ok(performance.now() - started < DNS_TIMEOUT_MS * 4, "canaries are asked at once");
  });

  it("runs a round every interval, so a fixed resolver is noticed without a restart", async () => {
    dns.setMode("nxdomain");
    const periodic = new NetworkHealth({
      resolver,
      resolverLabel: "test",
      canaries: parseCanaries(CANARIES),
      clock: systemClock,
      intervalMs: 20,
    });
    try {
      await periodic.start();
      assert.equal(periodic.status().network.dns.state, "down");
      dns.setMode("normal");
      await waitFor(
        async () => (periodic.status().network.dns.state === "ok" ? true : undefined),
        "the next round to trust the resolver again",
        5_000,
        10,
      );
    } finally {
      periodic.stop();
    }
  });

  it("believes every answer while not watched (NETWORK_CHECK off): no canary is asked", async () => {
    dns.setMode("nxdomain");
    const queries = dns.queries.length;
    assert.equal(await health.confirmDns(), true);
    assert.equal(dns.queries.length, queries);
    assert.equal(health.status().network.dns.state, "unknown");
  });

  it("watches SMTP egress each round, and leaves it unknown while the DNS it needs is down", async () => {
    let egress: "ok" | "blocked" = "blocked";
    const watched = new NetworkHealth({
      resolver,
      resolverLabel: "test",
      canaries: parseCanaries(CANARIES),
      smtp: {
        needsDns: true,
        check: {
          run: async () => ({ egress, egressMessage: egress === "ok" ? "reached" : "port 25: timed out" }),
        },
      },
      clock,
      intervalMs: 0,
    });
    await watched.runRound();
    assert.deepEqual(
      { state: watched.status().network.smtp.state, reason: watched.status().network.smtp.reason },
      { state: "down", reason: "port 25: timed out" },
    );
    egress = "ok";
    await watched.runRound();
    assert.equal(watched.status().network.smtp.state, "ok");
    dns.setMode("nxdomain");
    await watched.runRound();
    assert.equal(watched.status().network.smtp.state, "unknown");
    assert.match(watched.status().network.smtp.reason ?? "", /DNS is down/);
  });
});

describe("checks behind a lying or silent resolver", () => {
  let dns: TestDnsServer;
  let checksDns: DnsResolver;
  let canaryDns: DnsResolver;
  let health: Health;
  let rawEmail: EmailEngine;
  let email: NetworkGuardedEmail;
  let website: NetworkGuardedWebsite;

  before(async () => {
    dns = await startDnsServer(ZONE);
    checksDns = new DnsResolver({ servers: [dns.address], timeoutMs: DNS_TIMEOUT_MS });
    canaryDns = new DnsResolver({
      servers: [dns.address],
      timeoutMs: DNS_TIMEOUT_MS,
      negativeTtlSeconds: 0,
      maxTtlSeconds: 0,
    });
    health = new NetworkHealth({
      resolver: canaryDns,
      resolverLabel: "test",
      canaries: parseCanaries(CANARIES),
      clock: systemClock,
      intervalMs: 0,
      // Every negative answer is confirmed by a new round in these tests.
      confirmFreshMs: -1,
    });
    rawEmail = new EmailEngine({
      dns: checksDns,
      smtpPort: 1,
      heloName: "verifier.leadcheck.test",
      mailFrom: "verify@verifier.leadcheck.test",
      connectSmtp: smtpConnector({}),
      connectTimeoutMs: 200,
      commandTimeoutMs: 200,
      totalDeadlineMs: 1000,
      maxConnectionsPerMx: 1,
    });
    email = new NetworkGuardedEmail({ inner: rawEmail, dns: health });
    const websiteEngine = new WebsiteEngine({
      dns: checksDns,
      client: new HttpClient({ dns: checksDns, allowPrivateTargets: true, httpPort: 1, httpsPort: 1 }),
      firstTryTimeoutMs: 300,
      retryTimeoutMs: 300,
      fallbackTimeoutMs: 300,
      totalDeadlineMs: 2000,
    });
    website = new NetworkGuardedWebsite({ inner: websiteEngine, dns: health, clock: systemClock });
    await health.start();
  });
  after(async () => {
    health.stop();
    await rawEmail.close();
    checksDns.close();
    canaryDns.close();
    await dns.close();
  });
  beforeEach(() => {
    checksDns.clearCache();
  });

  it("jane.doe@gmail.com: the bare engine believes the liar (dns_nxdomain); through the guard it is unknown, resolver_unavailable", async () => {
    dns.setMode("nxdomain");
    const before = await rawEmail.verify("jane.doe@gmail.com");
    assert.equal(before.reason, "dns_nxdomain");
    assert.equal(before.status, "invalid");
    // The last round passed, before the resolver began to lie: the negative answer itself sends
    // the canaries out again.
    checksDns.clearCache();
    const after = await email.verify("jane.doe@gmail.com");
    assert.equal(after.reason, "resolver_unavailable");
    assert.equal(after.status, "unknown");
    assert.equal(after.valid, null);
    assert.ok(after.retryAfterMs, "retried later");
    assert.equal(health.status().network.dns.state, "down");
    // Once distrusted, nothing is asked at all.
    const queries = dns.queries.length;
    const again = await email.verify("someone@example.org");
    assert.equal(again.reason, "resolver_unavailable");
    assert.equal(dns.queries.length, queries);
  });

  it("a syntax error is still a syntax error: it needs no network", async () => {
    dns.setMode("nxdomain");
    await health.runRound();
    assert.equal((await email.verify("jane doe@gmail.com")).reason, "invalid_syntax");
  });

  it("answers at once while DNS is dropped, instead of waiting out every lookup", async () => {
    dns.setMode("drop");
    await health.runRound();
    const started = performance.now();
    const verdict = await email.verify("jane.doe@gmail.com");
    assert.equal(verdict.reason, "resolver_unavailable");
    assert.ok(performance.now() - started < DNS_TIMEOUT_MS, "no lookup was waited for");
  });

  it("a website behind the liar is an error that says resolver_unavailable, with no DNS facts", async () => {
    dns.setMode("nxdomain");
    await health.runRound();
    const result = await website.check("gmail.com");
    assert.equal(result.status, "error");
    assert.match(result.error ?? "", /^resolver_unavailable: /);
    assert.equal(result.sslValid, null);
    assert.equal(result.isParked, null);
    assert.equal(result.details.unavailable?.reason, "resolver_unavailable");
  });

  it("believes the resolver again once it is fixed: a real NXDOMAIN is dns_nxdomain", async () => {
    dns.setMode("normal");
    await health.runRound();
    assert.equal(health.status().network.dns.state, "ok");
    const verdict = await email.verify("someone@no-such-domain.test");
    assert.equal(verdict.reason, "dns_nxdomain");
    assert.equal(verdict.status, "invalid");
  });
});
