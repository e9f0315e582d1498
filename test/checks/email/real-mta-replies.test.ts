// The replies real mail servers send, answered at RCPT by a loopback SMTP server and read by the
// whole engine (SMTP client, enhanced-code parsing, classifier, provider rules, verdict). The
// replies are the corpus rows taken from Postfix, Dovecot and Exim sources and from Yahoo's and
// Exchange Online's own texts (test/fixtures/smtp-replies.json names each one's source).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { EmailReason } from "../../../src/checks/email/email.types.js";
import { EmailEngine } from "../../../src/checks/email/email-engine.js";
import { DnsResolver } from "../../../src/net/dns.js";
import { smtpConnector } from "../../../src/net/smtp-client.js";
import { startDnsServer, type TestDnsServer } from "../../support/dns-server.js";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server.js";

interface CorpusRow {
  code: number;
  enhanced: string | null;
  text: string;
  expected: string;
  source: string;
}

const REASON: Record<string, EmailReason> = {
  invalid: "mailbox_not_found",
  disabled: "mailbox_disabled",
  mailbox_full: "mailbox_full",
  blocked: "ip_blocked",
  temporary: "smtp_temporary",
  unknown: "smtp_unknown_reply",
};

const rows = (
  JSON.parse(readFileSync(new URL("../../fixtures/smtp-replies.json", import.meta.url), "utf8")) as {
    rows: CorpusRow[];
  }
).rows;
const fromSource = (pattern: RegExp) => rows.filter((r) => pattern.test(r.source));
const MTA_ROWS = fromSource(/^github:(vdukhovni\/postfix|dovecot\/core|Exim\/exim)@/);
const YAHOO_ROWS = rows.filter((r) => /yahoo\.com account/.test(r.text));
const EOP_ROWS = rows.filter((r) => /AS\(201806281\)/.test(r.text));

// One MX per kind of server; the provider rules key on the MX names (yahoodns.net, outlook.com).
const HOST = { mta: "127.0.2.2", yahoo: "127.0.2.3", eop: "127.0.2.4" } as const;
const DOMAIN = { mta: "postfix.test", yahoo: "yahoo-like.test", eop: "tenant.test" } as const;

/** row<i>@domain is answered with corpus row i, the address put where the server puts it. */
function scripted(list: CorpusRow[]) {
  return (address: string): string | undefined => {
    const m = /^row(\d+)@/.exec(address);
    if (!m) return undefined;
    const row = list[Number(m[1])]!;
    const text = row.text.replaceAll("user@example.com", address);
    return `${row.code}${row.enhanced ? ` ${row.enhanced}` : ""} ${text}`;
  };
}

describe("verdicts on the replies real mail servers send at RCPT", () => {
  let dnsServer: TestDnsServer;
  let smtp: TestSmtpServer;
  let dns: DnsResolver;
  let engine: EmailEngine;

  before(async () => {
    dnsServer = await startDnsServer({
      [DOMAIN.mta]: { MX: [{ exchange: "mx.postfix.test", priority: 10 }] },
      "mx.postfix.test": { A: [HOST.mta] },
      [DOMAIN.yahoo]: { MX: [{ exchange: "mta6.am0.yahoodns.net", priority: 1 }] },
      "mta6.am0.yahoodns.net": { A: [HOST.yahoo] },
      [DOMAIN.eop]: { MX: [{ exchange: "tenant-test.mail.protection.outlook.com", priority: 0 }] },
      "tenant-test.mail.protection.outlook.com": { A: [HOST.eop] },
    });
    smtp = await startSmtpServer({
      [HOST.mta]: { rcpt: scripted(MTA_ROWS), mailboxes: ["real@postfix.test"] },
      [HOST.yahoo]: { rcpt: scripted(YAHOO_ROWS), catchAll: true },
      [HOST.eop]: { rcpt: scripted(EOP_ROWS), mailboxes: ["real@tenant.test"] },
    });
    dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 1000 });
    let seed = 11;
    engine = new EmailEngine({
      dns,
      smtpPort: smtp.port,
      heloName: "verifier.test",
      mailFrom: "probe@verifier.test",
      connectTimeoutMs: 2000,
      commandTimeoutMs: 2000,
      totalDeadlineMs: 10000,
      maxConnectionsPerMx: 4,
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

  async function verdictsFor(list: CorpusRow[], domain: string) {
    const verdicts = await engine.verifyMany(list.map((_, i) => `row${i}@${domain}`));
    return list.map((row, i) => ({ row, verdict: verdicts[i]! }));
  }

  it("has Postfix, Dovecot and Exim replies, Yahoo's no-such-user and EOP's edge block to test", () => {
    for (const source of ["vdukhovni/postfix", "dovecot/core", "Exim/exim"])
      assert.ok(
        MTA_ROWS.some((r) => r.source.includes(source)),
        source,
      );
    assert.ok(YAHOO_ROWS.length >= 1 && EOP_ROWS.length >= 2);
  });

  it("reads a full or disabled mailbox behind Postfix's 'Recipient address rejected:' by its code, never as missing", async () => {
    const results = await verdictsFor(MTA_ROWS, DOMAIN.mta);
    const misread = results
      .filter(({ row, verdict }) => verdict.reason !== REASON[row.expected])
      .map(
        ({ row, verdict }) =>
          `${row.code} ${row.enhanced} ${row.text}: ${verdict.reason} (${verdict.details.smtp?.rule})`,
      );
    assert.deepEqual(misread, []);
    const byText = (pattern: RegExp) =>
      results.find(({ row }) => pattern.test(`${row.enhanced} ${row.text}`))!.verdict;
    const full = byText(/5\.2\.2 .*Recipient address rejected: Quota exceeded/);
    assert.equal(full.reason, "mailbox_full");
    assert.equal(full.status, "risky");
    const disabled = byText(/5\.2\.1 .*Recipient address rejected: Access denied/);
    assert.equal(disabled.reason, "mailbox_disabled");
  });

  it("takes Yahoo's 'This user doesn't have a yahoo.com account' as a definite answer, while an accepted RCPT there proves nothing", async () => {
    for (const { verdict } of await verdictsFor(YAHOO_ROWS, DOMAIN.yahoo)) {
      assert.equal(verdict.reason, "mailbox_not_found");
      assert.equal(verdict.status, "invalid");
      assert.equal(verdict.valid, false);
    }
    const accepted = await engine.verify(`someone@${DOMAIN.yahoo}`);
    assert.equal(accepted.reason, "provider_unverifiable");
    assert.equal(accepted.valid, null);
  });

  it("takes Exchange Online's 5.4.1 'Access denied. AS(201806281)' as a recipient missing from the tenant", async () => {
    for (const { verdict } of await verdictsFor(EOP_ROWS, DOMAIN.eop)) {
      assert.equal(verdict.reason, "mailbox_not_found");
      assert.equal(verdict.status, "invalid");
    }
    assert.equal((await engine.verify(`real@${DOMAIN.eop}`)).reason, "deliverable");
  });
});
