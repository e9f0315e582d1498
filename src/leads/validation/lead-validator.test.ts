import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EmailVerdict } from "../../checks/email/email.types.js";
import type { WebsiteCheckResult } from "../../checks/website/website.types.js";
import { rateLead } from "../lead-rating.js";
import { emailOutcomeOf, type LeadValidation, leadColumnsOf, websiteOutcomeOf } from "./lead-validator.js";

const email = {
  email: "ann@acme.example",
  status: "valid",
  valid: true,
  catchAll: false,
  disposable: false,
  role: false,
  free: false,
  emailRisk: "low",
  emailScore: 95,
  emailType: "personal",
  service: "smtp",
  domain: "acme.example",
  reason: "accepted",
  details: {},
} as unknown as EmailVerdict;

function site(
  over: Partial<WebsiteCheckResult>,
  parked: Partial<WebsiteCheckResult["details"]["parked"]> = {},
) {
  return {
    website: "https://acme.example/",
    status: "active",
    valid: true,
    httpStatus: 200,
    finalUrl: "https://acme.example/",
    sslValid: true,
    isParked: false,
    responseTimeMs: 120,
    redirectChain: ["https://acme.example/"],
    error: null,
    ...over,
    details: {
      parked: { score: 0, threshold: 60, kind: null, evidence: [], randomPath: null, ...parked },
    },
  } as unknown as WebsiteCheckResult;
}

function columns(w: WebsiteCheckResult) {
  const rating = rateLead(emailOutcomeOf(email), websiteOutcomeOf(w));
  const v: LeadValidation = {
    leadId: "lead_1",
    email,
    website: w,
    rating,
    domainScore: 20,
    domainFacts: null,
  };
  return { rating, cols: leadColumnsOf(v, "2026-01-01T00:00:00.000Z") };
}

describe("lead columns from a website result", () => {
  it("makes a lead with a placeholder website risky and keeps the kind and the evidence", () => {
    const evidence = [
      {
        signal: "title" as const,
        value: "Welcome to nginx!",
        provider: "nginx default",
        type: "placeholder",
        strength: "strong" as const,
        weight: 60,
        source: "observed",
      },
    ];
    const { rating, cols } = columns(site({ isParked: true }, { kind: "placeholder", score: 85, evidence }));
    assert.equal(rating.validationStatus, "risky");
    assert.equal(cols.domain_parked, 1);
    assert.equal(cols.website_parked_kind, "placeholder");
    assert.deepEqual(JSON.parse(cols.website_parked_evidence ?? "null"), [
      {
        signal: "title",
        value: "Welcome to nginx!",
        provider: "nginx default",
        type: "placeholder",
        weight: 60,
      },
    ]);
  });

  it("stores unknown TLS and parked state as null, never 0", () => {
    const { cols } = columns(
      site({ status: "error", valid: false, httpStatus: null, sslValid: null, isParked: null }),
    );
    assert.equal(cols.domain_ssl_valid, null);
    assert.equal(cols.domain_parked, null);
    assert.equal(cols.website_parked_kind, null);
    assert.equal(cols.website_parked_evidence, null);
  });

  it("stores a site without working https as sslValid 0 and a live page as not parked", () => {
    const { rating, cols } = columns(site({ sslValid: false, finalUrl: "http://acme.example/" }));
    assert.equal(cols.domain_ssl_valid, 0);
    assert.equal(cols.domain_parked, 0);
    assert.equal(cols.website_parked_evidence, null);
    assert.equal(rating.validationStatus, "valid");
  });
});
