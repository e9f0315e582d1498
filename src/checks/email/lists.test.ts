import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isDisposableDomain, isFreeDomain, isRoleLocal } from "./lists.js";
import { detectService } from "./service.js";

describe("reference lists", () => {
  const cases: [string, boolean, boolean][] = [
    // domain, disposable, free
    ["gmail.com", false, true],
    ["yahoo.co.uk", false, true],
    ["gmx.de", false, true],
    ["proton.me", false, true],
    ["mailinator.com", true, false],
    ["sub.mailinator.com", true, false],
    ["10minutemail.com", true, false],
    ["acme-industries.com", false, false],
    ["alibaba.com", false, false],
  ];
  for (const [domain, disposable, free] of cases) {
    it(`labels ${domain} disposable=${disposable} free=${free}`, () => {
      assert.equal(isDisposableDomain(domain), disposable);
      assert.equal(isFreeDomain(domain), free);
    });
  }

  it("recognises role accounts, ignoring case and sub-addresses", () => {
    for (const local of ["info", "Sales", "noreply", "no-reply", "support+eu", "admin"])
      assert.ok(isRoleLocal(local), local);
    for (const local of ["john", "jane.doe", "j.smith+news"]) assert.equal(isRoleLocal(local), false, local);
  });
});

describe("detectService", () => {
  const cases: [string, string[], string, boolean][] = [
    ["gmail.com", ["gmail-smtp-in.l.google.com", "alt1.gmail-smtp-in.l.google.com"], "Gmail", false],
    ["acme.com", ["aspmx.l.google.com", "alt1.aspmx.l.google.com"], "Google Workspace", false],
    ["acme.com", ["smtp.google.com"], "Google Workspace", false],
    ["acme.com", ["acme-com.mail.protection.outlook.com"], "Microsoft 365", false],
    ["outlook.com", ["outlook-com.olc.protection.outlook.com"], "Outlook.com", false],
    ["yahoo.com", ["mta5.am0.yahoodns.net"], "Yahoo", false],
    ["acme.com", ["mx.zoho.eu", "mx2.zoho.eu"], "Zoho", false],
    ["acme.com", ["mx0a-001b2d01.pphosted.com"], "Proofpoint", true],
    ["acme.com", ["eu-smtp-inbound-1.mimecast.com"], "Mimecast", true],
    ["acme.com", ["d123.a.ess.barracudanetworks.com"], "Barracuda", true],
    ["acme.com", ["in1-smtp.messagingengine.com"], "Fastmail", false],
    ["acme.com", ["mail.acme.com"], "Other", false],
    ["acme.com", [], "None", false],
  ];
  for (const [domain, hosts, service, gateway] of cases) {
    it(`names ${hosts[0] ?? "no MX"} for ${domain} as ${service}`, () => {
      assert.deepEqual(detectService(domain, hosts), { service, isGateway: gateway });
    });
  }
});
