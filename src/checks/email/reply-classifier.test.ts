import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseReplyLines } from "../../net/smtp-client.js";
import { classifyReply, parseRetryAfterMs, type ReplyOutcome, type SmtpStage } from "./reply-classifier.js";

// Real replies as providers document them (postmaster pages, RFC examples, MTA defaults).
const CASES: [string, SmtpStage, string[], ReplyOutcome][] = [
  [
    "Gmail unknown user",
    "rcpt",
    [
      "550-5.1.1 The email account that you tried to reach does not exist. Please try",
      "550-5.1.1 double-checking the recipient's email address for typos or",
      "550 5.1.1 unnecessary spaces. https://support.google.com/mail/?p=NoSuchUser",
    ],
    "invalid",
  ],
  [
    "Gmail disabled account",
    "rcpt",
    [
      "550-5.2.1 The email account that you tried to reach is disabled.",
      "550 5.2.1 https://support.google.com/mail/?p=DisabledUser",
    ],
    "disabled",
  ],
  [
    "Gmail over quota (temporary)",
    "rcpt",
    [
      "452-4.2.2 The email account that you tried to reach is over quota.",
      "452 4.2.2 Please direct the recipient to https://support.google.com/mail/?p=OverQuotaTemp",
    ],
    "mailbox_full",
  ],
  [
    "Gmail over quota (permanent)",
    "rcpt",
    ["552-5.2.2 The email account that you tried to reach is over quota and inactive."],
    "mailbox_full",
  ],
  [
    "Gmail PBL refusal",
    "rcpt",
    [
      "550-5.7.1 [203.0.113.5] The IP you're using to send mail is not authorized to send email directly to our servers.",
    ],
    "blocked",
  ],
  [
    "Gmail rate deferral",
    "rcpt",
    [
      "450-4.2.1 The user you are trying to contact is receiving mail at a rate that",
      "450 4.2.1 prevents additional messages from being delivered.",
    ],
    "rate_limited",
  ],
  ["Gmail closing", "rcpt", ["421-4.7.0 Try again later, closing connection."], "temporary"],
  [
    "Outlook.com unknown mailbox",
    "rcpt",
    [
      "550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302). [AM1EUR03FT004.eop-EUR03.prod.protection.outlook.com]",
    ],
    "invalid",
  ],
  [
    "Microsoft 365 recipient not found",
    "rcpt",
    ["550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup"],
    "invalid",
  ],
  [
    "Microsoft 365 edge blocking",
    "rcpt",
    [
      "550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [DM6NAM11FT045.eop-nam11.prod.protection.outlook.com]",
    ],
    "invalid",
  ],
  [
    "Outlook.com block list S3150",
    "rcpt",
    [
      "550 5.7.1 Unfortunately, messages from [203.0.113.5] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).",
    ],
    "blocked",
  ],
  [
    "Microsoft banned sending IP",
    "rcpt",
    [
      "550 5.7.606 Access denied, banned sending IP [203.0.113.5]. To request removal from this list please visit https://sender.office.com/",
    ],
    "blocked",
  ],
  [
    "Yahoo unknown user",
    "rcpt",
    [
      "554 delivery error: dd This user doesn't have a yahoo.com account (someone@yahoo.com) [0] - mta1234.mail.gq1.yahoo.com",
    ],
    "invalid",
  ],
  [
    "Yahoo disabled mailbox",
    "rcpt",
    [
      "554 delivery error: dd Sorry your message to x@yahoo.com cannot be delivered. This mailbox is disabled (554.30).",
    ],
    "disabled",
  ],
  [
    "Yahoo TSS04 deferral",
    "rcpt",
    [
      "421 4.7.0 [TSS04] Messages from 203.0.113.5 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1",
    ],
    "blocked",
  ],
  [
    "Spamhaus listing at RCPT",
    "rcpt",
    [
      "554 5.7.1 Service unavailable; Client host [203.0.113.5] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.5",
    ],
    "blocked",
  ],
  [
    "Postfix unknown user",
    "rcpt",
    ["550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown in virtual mailbox table"],
    "invalid",
  ],
  [
    "Postfix local unknown, no enhanced code",
    "rcpt",
    ["550 <nobody@example.com>: Recipient address rejected: User unknown in local recipient table"],
    "invalid",
  ],
  [
    "Postgrey greylisting",
    "rcpt",
    [
      "450 4.2.0 <a@example.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.com.html",
    ],
    "greylisted",
  ],
  [
    "Greylisting with a wait",
    "rcpt",
    ["451 4.7.1 Greylisting in action, please come back in 5 minutes"],
    "greylisted",
  ],
  ["4.7.1 try later", "rcpt", ["451 4.7.1 Please try again later"], "greylisted"],
  ["Postfix too many recipients", "rcpt", ["452 4.5.3 Error: too many recipients"], "too_many_recipients"],
  ["Legacy 552 too many recipients", "rcpt", ["552 Too many recipients"], "too_many_recipients"],
  [
    "Bare 552 at RCPT",
    "rcpt",
    ["552 Requested mail action aborted: exceeded storage allocation"],
    "mailbox_full",
  ],
  [
    "Mimecast invalid recipient",
    "rcpt",
    ["550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550 [ab12cd.uk123]"],
    "invalid",
  ],
  ["Exim unrouteable", "rcpt", ["550 Unrouteable address"], "invalid"],
  [
    "Relaying denied is a refusal of us, not of the mailbox",
    "rcpt",
    ["554 5.7.1 <x@other.example>: Relay access denied"],
    "blocked",
  ],
  [
    "Policy 5.7.1 without a mailbox reason",
    "rcpt",
    ["550 5.7.1 Delivery not authorized, message refused"],
    "blocked",
  ],
  [
    "Policy 5.7.1 that reads like an unknown recipient",
    "rcpt",
    ["554 5.7.1 <x@example.test>: Recipient address rejected: Access denied"],
    "blocked",
  ],
  [
    "Policy 5.7.1 about our sender, not the mailbox",
    "rcpt",
    ["550 5.7.1 <probe@leadcheck.test>: Sender address rejected: sender address does not exist"],
    "blocked",
  ],
  // Postfix writes "Recipient address rejected:" before every recipient refusal: the code decides.
  [
    "Postfix access(5) '550 5.2.1' (default text)",
    "rcpt",
    ["550 5.2.1 <x@example.test>: Recipient address rejected: Access denied"],
    "disabled",
  ],
  [
    "Postfix with Dovecot quota-status over quota",
    "rcpt",
    ["554 5.2.2 <x@example.test>: Recipient address rejected: Quota exceeded (mailbox for user is full)"],
    "mailbox_full",
  ],
  [
    "Postfix with Dovecot quota-status, unknown user",
    "rcpt",
    ["554 5.7.1 <x@example.test>: Recipient address rejected: Unknown user"],
    "invalid",
  ],
  [
    "Postfix address verification failing for a while",
    "rcpt",
    ["450 4.1.1 <x@example.test>: Recipient address rejected: address verification problem"],
    "temporary",
  ],
  ["Bare generic refusal", "rcpt", ["550 Address rejected"], "invalid"],
  [
    "Exchange Online's edge-block marker after a relay dropped the enhanced code",
    "rcpt",
    ["550 Recipient address rejected: Access denied. AS(201806281)"],
    "invalid",
  ],
  [
    "Exchange Online 5.4.1 relay refusal (a connector problem, not the mailbox)",
    "rcpt",
    ["550 5.4.1 Relay Access Denied ATTR36 [x.eop-nam11.prod.protection.outlook.com]"],
    "blocked",
  ],
  ["Generic 554 transaction failed", "rcpt", ["554 Transaction failed"], "unknown"],
  ["Syntax error reply", "rcpt", ["501 5.5.4 Syntax error in parameters"], "unknown"],
  ["Plain accept", "rcpt", ["250 2.1.5 OK"], "deliverable"],
  ["Will forward", "rcpt", ["251 User not local; will forward"], "deliverable"],
  [
    "Banner 554 Yahoo Spamhaus",
    "banner",
    [
      "553 5.7.1 [BL21] Connections will not be accepted from 203.0.113.5, because the ip is in Spamhaus's list",
    ],
    "blocked",
  ],
  ["Banner 554 no service", "banner", ["554 No SMTP service here"], "blocked"],
  [
    "Banner 421 busy",
    "banner",
    ["421 4.3.2 Service not available, closing transmission channel"],
    "temporary",
  ],
  ["MAIL FROM refused", "mail", ["550 5.7.1 Sender address rejected: Access denied"], "blocked"],
  ["EHLO accepted", "ehlo", ["250-mx.example.com", "250-PIPELINING", "250 STARTTLS"], "ok"],
];

describe("classifyReply", () => {
  for (const [name, stage, lines, expected] of CASES) {
    it(`classifies ${name} as ${expected}`, () => {
      const got = classifyReply(stage, parseReplyLines(lines));
      assert.equal(got.outcome, expected, `rule ${got.rule}`);
    });
  }

  it("gives greylisted and temporary replies a retry delay, parsed from the text when stated", () => {
    const grey = classifyReply(
      "rcpt",
      parseReplyLines(["451 4.7.1 Greylisted, please try again in 90 seconds"]),
    );
    assert.equal(grey.retryAfterMs, 90_000);
    const plain = classifyReply("rcpt", parseReplyLines(["450 4.2.0 Greylisted"]));
    assert.ok((plain.retryAfterMs ?? 0) > 0);
    const final = classifyReply("rcpt", parseReplyLines(["550 5.1.1 User unknown"]));
    assert.equal(final.retryAfterMs, undefined);
  });

  it("parses retry hints in seconds and minutes", () => {
    assert.equal(parseRetryAfterMs("come back in 5 minutes"), 300_000);
    assert.equal(parseRetryAfterMs("greylisted for 300 seconds"), 300_000);
    assert.equal(parseRetryAfterMs("retry after 45s"), 45_000);
    assert.equal(parseRetryAfterMs("try later"), undefined);
  });
});
