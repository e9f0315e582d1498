import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generate } from "selfsigned";
import { EmailEngine, type EmailEngineOptions } from "../../../src/checks/email/email-engine.js";
import { DnsResolver } from "../../../src/net/dns.js";
import { smtpConnector } from "../../../src/net/smtp-client.js";
import { startDnsServer, type TestDnsServer, type Zone } from "../../support/dns-server.js";
import { ioTurns, mockClock, untilIo } from "../../support/mock-clock.js";
import { type MxBehaviour, startSmtpServer, type TestSmtpServer } from "../../support/smtp-server.js";

// Each MX host is its own loopback address on the one SMTP test port.
const HOST = {
  known: "127.0.0.2",
  catchAll: "127.0.0.3",
  grey: "127.0.0.4",
  full: "127.0.0.5",
  disabled: "127.0.0.6",
  bannerBlock: "127.0.0.7",
  rcptBlock: "127.0.0.8",
  drop: "127.0.0.9",
  slow: "127.0.0.10",
  endless: "127.0.0.11",
  silent: "127.0.0.12",
  m365: "127.0.0.14",
  tls: "127.0.0.15",
  helo: "127.0.0.16",
  limited: "127.0.0.17",
  pool: "127.0.0.18",
  sluggish: "127.0.0.19",
  closing: "127.0.0.20",
  stall: "127.0.0.21",
} as const;
const NOTHING_LISTENS = "127.0.0.13";

function zone(): Zone {
  const z: Zone = {};
  const mx = (domain: string, ...hosts: [string, string][]) => {
    z[domain] = { MX: hosts.map(([name], i) => ({ exchange: name, priority: (i + 1) * 10 })) };
    for (const [name, ip] of hosts) z[name] = { A: [ip] };
  };
  mx("known.test", ["mx.known.test", HOST.known]);
  mx("catchall.test", ["mx.catchall.test", HOST.catchAll]);
  mx("grey.test", ["mx.grey.test", HOST.grey]);
  mx("full.test", ["mx.full.test", HOST.full]);
  mx("disabled.test", ["mx.disabled.test", HOST.disabled]);
  mx("bannerblock.test", ["mx.bannerblock.test", HOST.bannerBlock]);
  mx("rcptblock.test", ["mx.rcptblock.test", HOST.rcptBlock]);
  mx("drop.test", ["mx.drop.test", HOST.drop]);
  mx("slow.test", ["mx.slow.test", HOST.slow]);
  mx("endless.test", ["mx.endless.test", HOST.endless]);
  mx("silent.test", ["mx.silent.test", HOST.silent]);
  mx("fallback.test", ["mx1.fallback.test", NOTHING_LISTENS], ["mx2.fallback.test", HOST.known]);
  mx("gworkspace.test", ["aspmx.l.google.com", HOST.known], ["alt1.aspmx.l.google.com", HOST.known]);
  mx("m365.test", ["m365-test.mail.protection.outlook.com", HOST.m365]);
  mx("tls.test", ["mx.tls.test", HOST.tls]);
  mx("helo.test", ["mx.helo.test", HOST.helo]);
  mx("limited.test", ["mx.limited.test", HOST.limited]);
  mx("pool.test", ["mx.pool.test", HOST.pool]);
  mx("sluggish.test", ["mx.sluggish.test", HOST.sluggish]);
  mx("closing.test", ["mx.closing.test", HOST.closing]);
  mx("stall.test", ["mx.stall.test", HOST.stall]);
  mx("mailinator.com", ["mx.mailinator.test", HOST.catchAll]);
  z["amx.test"] = { A: [HOST.known] };
  z["nullmx.test"] = { MX: [{ exchange: "", priority: 0 }] };
  z["nomail.test"] = { TXT: ["v=spf1 -all"] };
  z["servfail.test"] = { rcode: "SERVFAIL" };
  return z;
}

const BLOCK_TEXT = "554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org";

async function behaviours(): Promise<Record<string, MxBehaviour>> {
  const pems = await generate([{ name: "commonName", value: "mx.tls.test" }], { keyType: "ec" });
  const known = [
    "alice@known.test",
    "bob@known.test",
    "info@known.test",
    "dave@amx.test",
    "eve@gworkspace.test",
  ];
  const pool = Array.from({ length: 40 }, (_, i) => `user${i}@pool.test`);
  return {
    [HOST.known]: { mailboxes: [...known, "carl@fallback.test"] },
    [HOST.catchAll]: { catchAll: true },
    [HOST.grey]: { greylist: true, mailboxes: ["carol@grey.test"] },
    [HOST.full]: { unknownReply: "552 5.2.2 <x@full.test>: Mailbox full" },
    [HOST.disabled]: { unknownReply: "550 5.2.1 The email account that you tried to reach is disabled." },
    [HOST.bannerBlock]: { banner: BLOCK_TEXT },
    [HOST.rcptBlock]: { rcpt: () => BLOCK_TEXT },
    [HOST.drop]: { dropAt: "rcpt" },
    [HOST.slow]: { replyDelayMs: 1500, mailboxes: ["slow@slow.test"] },
    [HOST.endless]: { endlessLineAt: "rcpt" },
    [HOST.silent]: { banner: null },
    [HOST.m365]: {
      mailboxes: ["frank@m365.test"],
      unknownReply:
        "550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [x.prod.protection.outlook.com]",
    },
    [HOST.tls]: { tls: { key: pems.private, cert: pems.cert }, mailboxes: ["gina@tls.test"] },
    [HOST.helo]: { noEhlo: true, mailboxes: ["hank@helo.test"] },
    [HOST.limited]: {
      maxRcptsPerTransaction: 2,
      mailboxes: ["a1@limited.test", "a2@limited.test", "a3@limited.test"],
    },
    [HOST.pool]: { mailboxes: pool, replyDelayMs: 5 },
    [HOST.closing]: { rcpt: () => "421 4.7.0 Try again later, closing connection." },
    [HOST.sluggish]: { mailboxes: ["sam@sluggish.test"], replyDelayMs: 120, delayModel: "serial" },
    // Greets, offers PIPELINING at EHLO, then never answers the pipelined transaction.
    [HOST.stall]: { stallAt: "mail" },
  };
}

describe("EmailEngine against local DNS and SMTP servers", () => {
  let dnsServer: TestDnsServer;
  let smtp: TestSmtpServer;
  let dns: DnsResolver;
  let engine: EmailEngine;
  let seed = 1;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return (seed - 1) / 2147483646;
  };
  const newEngine = (over: Partial<EmailEngineOptions> = {}) =>
    new EmailEngine({
      dns,
      smtpPort: smtp.port,
      heloName: "verifier.test",
      mailFrom: "probe@verifier.test",
      connectTimeoutMs: 500,
      commandTimeoutMs: 400,
      totalDeadlineMs: 4000,
      maxConnectionsPerMx: 2,
      random,
      connectSmtp: smtpConnector(),
      ...over,
    });

  before(async () => {
    dnsServer = await startDnsServer(zone());
    smtp = await startSmtpServer(await behaviours());
    // The local server always answers: a 300 ms budget once ran out under a loaded full run and
    // turned the first address into "unknown". No case here waits for a DNS timeout.
    dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 3000 });
    engine = newEngine();
  });
  after(async () => {
    await engine.close();
    dns.close();
    await smtp.close();
    await dnsServer.close();
  });
  const rcptsTo = (host: string) => smtp.commands.filter((c) => c.host === host && /^RCPT/i.test(c.line));

  it("answers valid for a known mailbox and invalid for an unknown one, with the catch-all probe settled", async () => {
    const [alice, nobody] = await engine.verifyMany(["alice@known.test", "nobody@known.test"]);
    assert.equal(alice!.status, "valid", `reason ${alice!.reason}`);
    assert.equal(alice!.valid, true);
    assert.equal(alice!.catchAll, false);
    assert.equal(alice!.reason, "deliverable");
    assert.equal(alice!.domain, "mx.known.test");
    assert.equal(alice!.emailType, "corporate");
    assert.equal(alice!.emailRisk, "low");
    assert.equal(nobody!.status, "invalid");
    assert.equal(nobody!.reason, "mailbox_not_found");
    assert.equal(nobody!.details.smtp?.enhanced, "5.1.1");
  });

  it("labels a role account and lowers its score", async () => {
    const [info, alice] = await engine.verifyMany(["info@known.test", "alice@known.test"]);
    assert.equal(info!.role, true);
    assert.equal(info!.emailType, "role");
    assert.ok(info!.emailScore < alice!.emailScore);
  });

  it("reports a domain that accepts every address as catch-all and risky, and reuses the answer", async () => {
    const first = await engine.verify("someone@catchall.test");
    assert.equal(first.status, "risky");
    assert.equal(first.catchAll, true);
    assert.equal(first.valid, true);
    assert.equal(first.details.catchAllSource, "probe");
    const probes = rcptsTo(HOST.catchAll).length;
    const second = await engine.verify("other@catchall.test");
    assert.equal(second.catchAll, true);
    assert.equal(second.details.catchAllSource, "cache");
    assert.equal(rcptsTo(HOST.catchAll).length, probes + 1, "no second catch-all probe");
  });

  it("probes catch-all again once the cached answer is older than its TTL", async () => {
    let nowMs = Date.now();
    const clocked = newEngine({ clock: { now: () => new Date(nowMs) }, catchAllTtlMs: 60_000 });
    assert.equal((await clocked.verify("p1@catchall.test")).details.catchAllSource, "probe");
    assert.equal((await clocked.verify("p2@catchall.test")).details.catchAllSource, "cache");
    nowMs += 61_000;
    const later = await clocked.verify("p3@catchall.test");
    assert.equal(later.details.catchAllSource, "probe");
    assert.equal(later.catchAll, true);
    await clocked.close();
  });

  it("answers greylisting with a retry hint, and valid on the retry", async () => {
    const first = await engine.verify("carol@grey.test");
    assert.equal(first.status, "unknown");
    assert.equal(first.reason, "greylisted");
    assert.equal(first.retryAfterMs, 60_000);
    const second = await engine.verify("carol@grey.test");
    assert.equal(second.status, "valid");
    assert.equal(second.catchAll, false, "a greylisted catch-all probe never makes a catch-all");
    assert.equal(second.retryAfterMs, undefined);
  });

  it("classifies 552 as mailbox full and 550 5.2.1 as disabled", async () => {
    const [full, disabled] = await engine.verifyMany(["x@full.test", "y@disabled.test"]);
    assert.equal(full!.reason, "mailbox_full");
    assert.equal(full!.status, "risky");
    assert.equal(disabled!.reason, "mailbox_disabled");
    assert.equal(disabled!.status, "invalid");
  });

  it("treats a blocklist refusal at the banner or at RCPT as unknown, never invalid", async () => {
    const [banner, rcpt] = await engine.verifyMany(["a@bannerblock.test", "b@rcptblock.test"]);
    for (const v of [banner!, rcpt!]) {
      assert.equal(v.status, "unknown");
      assert.equal(v.reason, "ip_blocked");
      assert.equal(v.valid, null, "unknown is never written as false");
    }
    assert.equal(banner!.details.smtp?.stage, "banner");
    assert.equal(rcpt!.details.smtp?.stage, "rcpt");
  });

  it("turns a dropped connection, a slow server, an endless line and a silent server into reasons", async () => {
    const [drop, slow, endless, silent] = await engine.verifyMany([
      "a@drop.test",
      "slow@slow.test",
      "a@endless.test",
      "a@silent.test",
    ]);
    assert.equal(drop!.reason, "smtp_connection_dropped");
    assert.equal(slow!.reason, "smtp_timeout");
    assert.equal(endless!.reason, "smtp_protocol_error");
    assert.equal(silent!.reason, "smtp_timeout");
    for (const v of [drop!, slow!, endless!, silent!]) {
      assert.equal(v.status, "unknown");
      assert.ok(v.retryAfterMs !== undefined || v.reason === "smtp_protocol_error");
    }
  });

  it("moves to the next MX when the first refuses connections", async () => {
    const v = await engine.verify("carl@fallback.test");
    assert.equal(v.status, "valid");
    assert.equal(v.domain, "mx2.fallback.test");
  });

  it("does not connect to MX addresses the address filter refuses", async () => {
    const guarded = newEngine({ isAddressAllowed: (ip) => ip !== HOST.known });
    const before = smtp.connections.get(HOST.known) ?? 0;
    const v = await guarded.verify("alice@known.test");
    assert.equal(v.status, "unknown");
    assert.equal(v.reason, "smtp_connect_failed");
    assert.equal(smtp.connections.get(HOST.known) ?? 0, before);
  });

  it("falls back to the A record when a domain has no MX", async () => {
    const v = await engine.verify("dave@amx.test");
    assert.equal(v.status, "valid");
    assert.equal(v.details.implicitMx, true);
    assert.equal(v.domain, "amx.test");
  });

  it("answers invalid for NXDOMAIN, Null MX and no mail host, unknown for SERVFAIL", async () => {
    const [nx, nullMx, none, sf] = await engine.verifyMany([
      "a@missing.test",
      "a@nullmx.test",
      "a@nomail.test",
      "a@servfail.test",
    ]);
    assert.equal(nx!.reason, "dns_nxdomain");
    assert.equal(nullMx!.reason, "null_mx");
    assert.equal(none!.reason, "no_mx");
    for (const v of [nx!, nullMx!, none!]) assert.equal(v.status, "invalid");
    assert.equal(sf!.reason, "dns_servfail");
    assert.equal(sf!.status, "unknown");
  });

  it("returns an invalid verdict for bad syntax without any lookup", async () => {
    const before = dnsServer.queries.length;
    const v = await engine.verify("not an address");
    assert.equal(v.status, "invalid");
    assert.equal(v.reason, "invalid_syntax");
    assert.equal(dnsServer.queries.length, before);
  });

  it("names the provider from MX hosts of the big providers", async () => {
    const [google, m365, m365Unknown] = await engine.verifyMany([
      "eve@gworkspace.test",
      "frank@m365.test",
      "ghost@m365.test",
    ]);
    assert.equal(google!.service, "Google Workspace");
    assert.equal(google!.domain, "aspmx.l.google.com");
    assert.equal(m365!.service, "Microsoft 365");
    assert.equal(m365!.status, "valid");
    assert.equal(m365Unknown!.status, "invalid", "edge blocking's 5.4.1 means no such recipient");
  });

  it("upgrades with STARTTLS when offered and falls back to HELO when EHLO is unknown", async () => {
    const [tls, helo] = await engine.verifyMany(["gina@tls.test", "hank@helo.test"]);
    assert.equal(tls!.status, "valid");
    assert.equal(tls!.details.smtp?.tls, true);
    assert.equal(helo!.status, "valid");
    assert.ok(smtp.commands.some((c) => c.host === HOST.helo && c.line.startsWith("HELO ")));
  });

  it("flags disposable domains as risky", async () => {
    const v = await engine.verify("throwaway@mailinator.com");
    assert.equal(v.disposable, true);
    assert.equal(v.status, "risky");
    assert.equal(v.emailRisk, "high");
  });

  it("checks many addresses of one domain in one SMTP session", async () => {
    const before = smtp.connections.get(HOST.known) ?? 0;
    const emails = [
      "alice@known.test",
      "bob@known.test",
      ...Array.from({ length: 6 }, (_, i) => `n${i}@known.test`),
    ];
    const verdicts = await engine.verifyMany(emails);
    assert.deepEqual(
      verdicts.map((v) => v.status),
      ["valid", "valid", "invalid", "invalid", "invalid", "invalid", "invalid", "invalid"],
    );
    assert.equal((smtp.connections.get(HOST.known) ?? 0) - before, 1);
  });

  it("shares one session between concurrent verify() calls of the same domain", async () => {
    const [a, b] = await Promise.all([
      engine.verify("eve@gworkspace.test"),
      engine.verify("nobody@gworkspace.test"),
    ]);
    assert.equal(a.status, "valid");
    assert.equal(b.status, "invalid");
    const sessionOf = (address: string) =>
      smtp.commands.filter((c) => c.line.includes(`<${address}>`)).at(-1)?.connection;
    assert.equal(sessionOf("eve@gworkspace.test"), sessionOf("nobody@gworkspace.test"));
  });

  it("starts a new transaction when the server limits recipients per transaction", async () => {
    const before = smtp.connections.get(HOST.limited) ?? 0;
    const emails = [
      "a1@limited.test",
      "a2@limited.test",
      "a3@limited.test",
      "z1@limited.test",
      "z2@limited.test",
    ];
    const verdicts = await engine.verifyMany([...emails, "z3@limited.test", "z4@limited.test"]);
    assert.deepEqual(
      verdicts.map((v) => v.status),
      ["valid", "valid", "valid", "invalid", "invalid", "invalid", "invalid"],
    );
    assert.ok(verdicts.every((v) => v.catchAll === false));
    assert.equal((smtp.connections.get(HOST.limited) ?? 0) - before, 1);
  });

  it("keeps to the connection limit per MX host while checking many addresses", async () => {
    const pooled = newEngine({ maxConnectionsPerMx: 2, addressesPerSession: 5, maxRcptsPerSession: 12 });
    const emails = Array.from({ length: 40 }, (_, i) => `user${i}@pool.test`);
    const verdicts = await pooled.verifyMany([...emails, "ghost@pool.test"]);
    await pooled.close();
    assert.ok(verdicts.slice(0, 40).every((v) => v.status === "valid"));
    assert.equal(verdicts[40]!.status, "invalid");
    assert.ok((smtp.peakConcurrent.get(HOST.pool) ?? 0) <= 2, `peak ${smtp.peakConcurrent.get(HOST.pool)}`);
    assert.ok((smtp.connections.get(HOST.pool) ?? 0) <= 6, `connections ${smtp.connections.get(HOST.pool)}`);
  });

  it("ends a session at the total deadline even when every reply is within the command timeout", async () => {
    // The same exchange completes under a longer deadline: the deadline, not a reply, ended it.
    // (The mocked-clock test below shows when it ends.)
    const bounded = newEngine({ totalDeadlineMs: 300 });
    const v = await bounded.verify("sam@sluggish.test");
    assert.equal(v.reason, "smtp_timeout");
    const patient = newEngine({ totalDeadlineMs: 4000 });
    assert.equal((await patient.verify("sam@sluggish.test")).status, "valid");
  });

  it("ends each session that stalls after PIPELINING at its total deadline, not the command timeout", async (t) => {
    const stalling = newEngine({ commandTimeoutMs: 60_000, totalDeadlineMs: 300 });
    const clock = mockClock(t);
    let isDone = false;
    const verdict = stalling.verify("ann@stall.test").finally(() => {
      isDone = true;
    });
    const sessions = () => smtp.connections.get(HOST.stall) ?? 0;
    const verbs = () =>
      smtp.commands.filter((c) => c.host === HOST.stall).map((c) => c.line.split(/[ :]/)[0]);
    const transactions = () => verbs().filter((verb) => verb === "RSET").length;
    await untilIo(() => transactions() === 1, "the pipelined transaction at the server");
    assert.deepEqual(verbs(), ["EHLO", "MAIL", "RCPT", "RCPT", "RSET"], "sent at once, never answered");
    clock.tick(299);
    await ioTurns(20);
    assert.equal(sessions(), 1, "the first session still waits 1 ms before its deadline");
    // At its deadline the session gives up; the address gets its one more try in a new session.
    clock.tick(1);
    await untilIo(() => transactions() === 2, "the second session's transaction");
    assert.equal(sessions(), 2);
    clock.tick(299);
    await ioTurns(20);
    assert.equal(isDone, false, "the second session still waits 1 ms before its deadline");
    clock.tick(1);
    await untilIo(() => isDone, "the verdict at the second session's deadline");
    const v = await verdict;
    assert.equal(v.reason, "smtp_timeout");
    assert.equal(v.status, "unknown");
    assert.equal(v.valid, null);
    assert.equal(v.details.smtp?.stage, "mail");
    assert.equal(v.details.smtp?.text, "no reply within 300 ms");
    await stalling.close();
  });

  it("answers addresses beyond the per-MX queue's limit at once, unknown with a retry hint, without probing them", async () => {
    const bounded = newEngine({ maxQueuedPerMx: 3, maxConnectionsPerMx: 1 });
    const emails = [
      "alice@known.test",
      "bob@known.test",
      "info@known.test",
      "over1@known.test",
      "over2@known.test",
    ];
    const verdicts = await bounded.verifyMany(emails);
    await bounded.close();
    assert.deepEqual(
      verdicts.map((v) => v.reason),
      ["deliverable", "deliverable", "deliverable", "probe_queue_full", "probe_queue_full"],
    );
    for (const v of verdicts.slice(3)) {
      assert.equal(v.status, "unknown");
      assert.equal(v.valid, null);
      assert.ok((v.retryAfterMs ?? 0) > 0, "retried later");
      assert.equal(v.details.message, "not probed: 3 addresses already wait for mail server mx.known.test");
    }
    const probed = rcptsTo(HOST.known).map((c) => c.line);
    assert.ok(!probed.some((line) => /over[12]@/.test(line)), "never sent to the server");
  });

  it("gives up on a server that closes at every RCPT, with a retry hint", async () => {
    const before = smtp.connections.get(HOST.closing) ?? 0;
    const v = await engine.verify("a@closing.test");
    assert.equal(v.reason, "smtp_temporary");
    assert.equal(v.status, "unknown");
    assert.ok((v.retryAfterMs ?? 0) > 0);
    assert.ok((smtp.connections.get(HOST.closing) ?? 0) - before <= 2);
  });

  it("answers a misconfigured proxy with a proxy_error verdict instead of hanging", async () => {
    const proxied = newEngine({ connectSmtp: smtpConnector({ socksProxy: "http://proxy.invalid:8080" }) });
    const v = await proxied.verify("alice@known.test");
    assert.equal(v.reason, "proxy_error");
    assert.equal(v.status, "unknown");
  });

  it("never throws, whatever the input", async () => {
    for (const input of [undefined, null, 42, {}, "a@b", "@@"] as unknown as string[]) {
      const v = await engine.verify(input);
      assert.equal(v.status, "invalid");
    }
  });

  it("never sends DATA", () => {
    assert.ok(smtp.commands.length > 0);
    assert.equal(smtp.sawData(), false);
  });
});
