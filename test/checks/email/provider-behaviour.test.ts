import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { EmailEngine } from "../../../src/checks/email/email-engine.js";
import { fetchHeadStatus, M365PersonalSite } from "../../../src/checks/email/m365-personal-site.js";
import {
  parseProviderRules,
  providerRuleFor,
  providerRuleLookup,
} from "../../../src/checks/email/provider-rules.js";
import { DnsResolver } from "../../../src/net/dns.js";
import { smtpConnector } from "../../../src/net/smtp-client.js";
import { startDnsServer, type TestDnsServer, type Zone } from "../../support/dns-server.js";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server.js";

// Provider rules are keyed by MX host suffix, so the fake DNS names the MX hosts like the real
// providers do while every one of them resolves to a loopback address of the test SMTP server.
const HOST = { yahoo: "127.0.1.2", m365: "127.0.1.3", gateway: "127.0.1.4", m365Dbeb: "127.0.1.5" } as const;

function zone(): Zone {
  const z: Zone = {};
  const mx = (domain: string, name: string, ip: string) => {
    z[domain] = { MX: [{ exchange: name, priority: 10 }] };
    z[name] = { A: [ip] };
  };
  mx("yahoo-like.test", "mta5.am0.yahoodns.net", HOST.yahoo);
  mx("aol-like.test", "mx-aol.mail.gm0.yahoodns.net", HOST.yahoo);
  mx("tenant.test", "tenant-test.mail.protection.outlook.com", HOST.m365);
  mx("dbeb.test", "dbeb-test.mail.protection.outlook.com", HOST.m365Dbeb);
  mx("gated.test", "mx0a-001.pphosted.com", HOST.gateway);
  return z;
}

describe("provider behaviour from the per-provider data file", () => {
  let dnsServer: TestDnsServer;
  let smtp: TestSmtpServer;
  let dns: DnsResolver;
  let engine: EmailEngine;
  const rcptsTo = (host: string) => smtp.commands.filter((c) => c.host === host && /^RCPT/i.test(c.line));

  before(async () => {
    dnsServer = await startDnsServer(zone());
    smtp = await startSmtpServer({
      // Yahoo and AOL accept every RCPT and bounce unknown users after DATA.
      [HOST.yahoo]: { catchAll: true },
      // A Microsoft 365 tenant without directory-based edge blocking accepts everything.
      [HOST.m365]: { catchAll: true },
      [HOST.m365Dbeb]: {
        mailboxes: ["known@dbeb.test"],
        unknownReply:
          "550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [x.prod.protection.outlook.com]",
      },
      [HOST.gateway]: { catchAll: true },
    });
    dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 1000 });
    let seed = 7;
    engine = new EmailEngine({
      dns,
      smtpPort: smtp.port,
      heloName: "verifier.test",
      mailFrom: "probe@verifier.test",
      connectTimeoutMs: 2000,
      commandTimeoutMs: 2000,
      totalDeadlineMs: 10000,
      maxConnectionsPerMx: 10,
      connectSmtp: smtpConnector(),
      random: () => {
        seed = (seed * 16807) % 2147483647;
        return (seed - 1) / 2147483646;
      },
    });
  });
  after(async () => {
    await engine.close();
    dns.close();
    await smtp.close();
    await dnsServer.close();
  });

  it("matches rules on whole MX labels, longest suffix first", () => {
    assert.equal(providerRuleFor("mta5.am0.yahoodns.net")?.provider, "Yahoo / AOL");
    assert.equal(providerRuleFor("MX-AOL.mail.gm0.yahoodns.net.")?.provider, "Yahoo / AOL");
    assert.equal(providerRuleFor("evilyahoodns.net"), undefined);
    assert.equal(providerRuleFor("x.olc.protection.outlook.com")?.provider, "Outlook.com");
    assert.equal(providerRuleFor("x.mail.protection.outlook.com")?.provider, "Microsoft 365");
  });

  it("never calls a Yahoo or AOL address valid on an accepted RCPT alone", async () => {
    const [yahoo, aol] = await engine.verifyMany(["someone@yahoo-like.test", "someone@aol-like.test"]);
    for (const v of [yahoo!, aol!]) {
      assert.equal(v.reason, "provider_unverifiable");
      assert.equal(v.status, "unknown");
      assert.equal(v.valid, null);
    }
    // The catch-all probe proves nothing there and is not sent: one RCPT per address.
    assert.equal(rcptsTo(HOST.yahoo).length, 2);
  });

  it("reports a Microsoft 365 tenant that accepts every address as catch-all with its own reason", async () => {
    const v = await engine.verify("anyone@tenant.test");
    assert.equal(v.reason, "tenant_accept_all");
    assert.equal(v.catchAll, true);
    assert.equal(v.status, "risky");
  });

  it("reads Microsoft 365's 5.4.1 Access denied as an unknown recipient, not a block of us", async () => {
    const [known, ghost] = await engine.verifyMany(["known@dbeb.test", "ghost@dbeb.test"]);
    assert.equal(known!.reason, "deliverable");
    assert.equal(ghost!.reason, "mailbox_not_found");
    assert.equal(ghost!.status, "invalid");
  });

  it("does not send the catch-all probe to a gateway whose rule forbids it", async () => {
    const v = await engine.verify("someone@gated.test");
    assert.equal(v.reason, "deliverable");
    assert.equal(v.details.catchAllSource, "none");
    assert.equal(rcptsTo(HOST.gateway).length, 1);
  });

  it("keeps to the provider's connection limit even when the configured one is higher", async () => {
    const many = Array.from({ length: 60 }, (_, i) => `user${i}@yahoo-like.test`);
    await engine.verifyMany(many);
    assert.ok((smtp.peakConcurrent.get(HOST.yahoo) ?? 0) <= 2, `peak ${smtp.peakConcurrent.get(HOST.yahoo)}`);
  });
});

describe("per-provider timeouts from a rule keyed to the fake's MX suffix", () => {
  // Two loopback hosts of one SMTP fake: one slow to answer its first RCPT, one slow to greet.
  const SLOW_RCPT = "127.0.1.6";
  const SLOW_BANNER = "127.0.1.7";
  let dnsServer: TestDnsServer;
  let smtp: TestSmtpServer;
  let dns: DnsResolver;
  const ruleFor = providerRuleLookup(
    parseProviderRules([
      { mxSuffix: "rcpt.fake-mx.test", provider: "Fake, RCPT capped", commandTimeoutMaxMs: 150 },
      { mxSuffix: "banner.fake-mx.test", provider: "Fake, greeting floor", greetingTimeoutMinMs: 5000 },
    ]),
  );
  const engine = (overrides: Partial<ConstructorParameters<typeof EmailEngine>[0]> = {}) =>
    new EmailEngine({
      dns,
      smtpPort: smtp.port,
      heloName: "verifier.test",
      mailFrom: "probe@verifier.test",
      connectSmtp: smtpConnector(),
      connectTimeoutMs: 2000,
      commandTimeoutMs: 5000,
      totalDeadlineMs: 10000,
      maxConnectionsPerMx: 2,
      ...overrides,
    });

  before(async () => {
    dnsServer = await startDnsServer({
      "slow-rcpt.test": { MX: [{ exchange: "mx1.rcpt.fake-mx.test", priority: 10 }] },
      "mx1.rcpt.fake-mx.test": { A: [SLOW_RCPT] },
      "slow-banner.test": { MX: [{ exchange: "mx1.banner.fake-mx.test", priority: 10 }] },
      "mx1.banner.fake-mx.test": { A: [SLOW_BANNER] },
    });
    smtp = await startSmtpServer({
      [SLOW_RCPT]: { catchAll: true, firstRcptDelayMs: 800 },
      [SLOW_BANNER]: { catchAll: true, bannerDelayMs: 800 },
    });
    dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 1000 });
  });
  after(async () => {
    dns.close();
    await smtp.close();
    await dnsServer.close();
  });

  it("a tighter command cap ends a slow RCPT as smtp_timeout, in both modes", async () => {
    const plain = engine();
    const capped = engine({ providerRuleFor: ruleFor });
    try {
      // Without the rule the same server answers within the engine's 5 s: a verdict.
      assert.equal((await plain.verify("someone@slow-rcpt.test")).reason, "accept_all");
      const v = await capped.verify("someone@slow-rcpt.test");
      assert.equal(v.reason, "smtp_timeout");
      assert.equal(v.status, "unknown");
      assert.equal(v.valid, null);
      // The cap also bounds RFC 5321's five background minutes.
      const bg = await capped.verify("other@slow-rcpt.test", { background: { budgetMs: 60_000 } });
      assert.equal(bg.reason, "smtp_timeout");
    } finally {
      await plain.close();
      await capped.close();
    }
  });

  it("a greeting floor waits out a delayed banner the interactive timeout would give up on", async () => {
    const plain = engine({ commandTimeoutMs: 200 });
    const floored = engine({ commandTimeoutMs: 200, providerRuleFor: ruleFor });
    try {
      assert.equal((await plain.verify("someone@slow-banner.test")).reason, "smtp_timeout");
      assert.equal((await floored.verify("someone@slow-banner.test")).reason, "accept_all");
    } finally {
      await plain.close();
      await floored.close();
    }
  });

  it("a greeting floor never runs past the session's total deadline", async () => {
    const short = engine({ commandTimeoutMs: 200, totalDeadlineMs: 300, providerRuleFor: ruleFor });
    try {
      const v = await short.verify("someone@slow-banner.test");
      assert.equal(v.reason, "smtp_timeout");
    } finally {
      await short.close();
    }
  });
});

describe("Microsoft 365 personal site as a positive-only second signal", () => {
  it("builds the personal-site URL from the registrable domain's name", () => {
    const site = new M365PersonalSite({ headStatus: async () => undefined });
    assert.equal(
      site.urlOf("Jane.Doe@mail.acme.co.uk"),
      "https://acme-my.sharepoint.com/personal/jane_doe_mail_acme_co_uk/_layouts/15/onedrive.aspx",
    );
  });

  it("upgrades an accept-all tenant's address only when its personal site answers 403", async () => {
    const requested: string[] = [];
    const server = createServer((req, res) => {
      requested.push(`${req.method} ${req.url}`);
      res.statusCode = req.url?.includes("/personal/known_tenant_test/") ? 403 : 404;
      res.end();
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dnsServer = await startDnsServer({
      "tenant.test": { MX: [{ exchange: "tenant-test.mail.protection.outlook.com", priority: 10 }] },
      "tenant-test.mail.protection.outlook.com": { A: ["127.0.1.3"] },
    });
    const smtp = await startSmtpServer({ "127.0.1.3": { catchAll: true } });
    const dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 1000 });
    const options = {
      dns,
      connectSmtp: smtpConnector(),
      smtpPort: smtp.port,
      heloName: "verifier.test",
      mailFrom: "probe@verifier.test",
      connectTimeoutMs: 2000,
      commandTimeoutMs: 2000,
      totalDeadlineMs: 10000,
      maxConnectionsPerMx: 2,
    };
    const site = new M365PersonalSite({ headStatus: fetchHeadStatus(2000), originOf: () => origin });
    const withSignal = new EmailEngine({ ...options, m365PersonalSite: site });
    const without = new EmailEngine(options);
    try {
      const [known, ghost] = await withSignal.verifyMany(["known@tenant.test", "ghost@tenant.test"]);
      assert.equal(known!.reason, "deliverable");
      assert.equal(known!.status, "valid");
      assert.equal(known!.catchAll, true, "the tenant still accepts every address");
      assert.equal(ghost!.reason, "tenant_accept_all", "a 404 is not evidence of absence");
      assert.ok(
        requested.every((r) => r.startsWith("HEAD /personal/")),
        requested.join(", "),
      );
      const before = requested.length;
      assert.equal((await without.verify("known@tenant.test")).reason, "tenant_accept_all");
      assert.equal(requested.length, before, "off unless configured");
    } finally {
      await withSignal.close();
      await without.close();
      dns.close();
      await smtp.close();
      await dnsServer.close();
      server.close();
    }
  });
});
