import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type DomainOutcome,
  type EmailOutcome,
  qualityFor,
  rateLead,
  recommendationFor,
  type WebsiteOutcome,
} from "./lead-rating.js";

const goodEmail: EmailOutcome = {
  status: "valid",
  valid: true,
  catchAll: false,
  disposable: false,
  role: false,
  free: false,
  risk: "low",
};
const goodSite: WebsiteOutcome = {
  status: "active",
  httpStatus: 200,
  sslValid: true,
  isParked: false,
  responseTimeMs: 300,
  redirectCount: 1,
};

describe("lead rating", () => {
  it("maps ratings to the seed's recommendation bands and the quality labels", () => {
    const cases: [number, string, string][] = [
      [100, "high_priority", "excellent"],
      [90, "high_priority", "excellent"],
      [89, "high_priority", "good"],
      [85, "high_priority", "good"],
      [84, "validate", "good"],
      [70, "validate", "good"],
      [69, "research", "fair"],
      [50, "research", "fair"],
      [49, "skip", "poor"],
      [0, "skip", "poor"],
    ];
    for (const [rating, rec, quality] of cases) {
      assert.equal(recommendationFor(rating), rec, `${rating}`);
      assert.equal(qualityFor(rating), quality, `${rating}`);
    }
  });

  it("rates a confirmed mailbox on a live, secure, fast site 100 and valid", () => {
    const r = rateLead(goodEmail, goodSite);
    assert.equal(r.rating, 100);
    assert.equal(r.recommendation, "high_priority");
    assert.equal(r.validationStatus, "valid");
    assert.equal(
      r.factors.reduce((s, f) => s + f.points, 0),
      100,
      "the factors add up to the rating",
    );
  });

  it("explains a catch-all lead as research, not high priority", () => {
    const r = rateLead({ ...goodEmail, catchAll: true, risk: "medium" }, goodSite);
    assert.equal(r.validationStatus, "risky");
    assert.ok(r.factors.some((f) => f.code === "email_catch_all"));
    assert.equal(r.recommendation, "validate");
    assert.equal(r.rating, 35 - 5 + 40);
  });

  it("caps an undeliverable email at 20 and marks it invalid", () => {
    const r = rateLead({ ...goodEmail, status: "invalid", valid: false }, goodSite);
    assert.equal(r.validationStatus, "invalid");
    assert.ok(r.rating <= 20);
    assert.equal(r.recommendation, "skip");
  });

  it("treats a parked website as risky and costs it points", () => {
    const r = rateLead(goodEmail, { ...goodSite, isParked: true });
    assert.equal(r.validationStatus, "risky");
    assert.ok(r.factors.some((f) => f.code === "domain_parked" && f.points < 0));
    assert.ok(r.rating < 85);
  });

  it("treats a placeholder website as risky, names it, and costs it as much as a parked one", () => {
    const parked = rateLead(goodEmail, { ...goodSite, isParked: true, parkedKind: "parked" });
    const placeholder = rateLead(goodEmail, { ...goodSite, isParked: true, parkedKind: "placeholder" });
    assert.equal(placeholder.validationStatus, "risky");
    assert.ok(placeholder.factors.some((f) => f.code === "domain_placeholder" && f.points < 0));
    assert.equal(placeholder.rating, parked.rating);
    assert.ok(placeholder.rating < rateLead(goodEmail, goodSite).rating);
  });

  it("scores unknown TLS and parked state as unknown (no points, no penalty), never as invalid", () => {
    const r = rateLead(goodEmail, { ...goodSite, status: "inactive", sslValid: null, isParked: null });
    const codes = r.factors.map((f) => f.code);
    assert.ok(codes.includes("ssl_unknown") && codes.includes("parked_unknown"), codes.join());
    assert.ok(!codes.includes("ssl_invalid") && !codes.includes("domain_not_parked"));
    assert.equal(r.validationStatus, "risky");
  });

  it("rates a lead without a website on its email alone", () => {
    const r = rateLead(goodEmail, null);
    assert.equal(r.validationStatus, "valid");
    assert.equal(r.rating, 85);
  });

  it("keeps ratings within 0-100 for the worst case", () => {
    const r = rateLead(
      {
        status: "risky",
        valid: false,
        catchAll: false,
        disposable: true,
        role: true,
        free: true,
        risk: "high",
      },
      {
        ...goodSite,
        status: "inactive",
        sslValid: false,
        isParked: true,
        responseTimeMs: 9000,
        redirectCount: 8,
      },
    );
    assert.equal(r.rating, 0);
    assert.equal(r.validationStatus, "risky");
  });

  describe("domain factors", () => {
    const neutral: DomainOutcome = {
      ageDays: 400,
      domainListed: false,
      mxListed: false,
      spf: "present",
      dmarc: "present",
      nullMx: false,
      certDaysToExpiry: 60,
      didYouMean: null,
    };
    const cases: [string, Partial<DomainOutcome>, Record<string, number>][] = [
      ["nothing notable", {}, {}],
      ["young domain", { ageDays: 20 }, { domain_young: -15 }],
      ["89 days is young, 90 is not", { ageDays: 89 }, { domain_young: -15 }],
      ["90 days", { ageDays: 90 }, {}],
      ["established domain", { ageDays: 5 * 365 }, { domain_established: 5 }],
      [
        "listed domain and MX",
        { domainListed: true, mxListed: true },
        { domain_blocklisted: -30, mx_blocklisted: -15 },
      ],
      ["no SPF, no DMARC", { spf: "absent", dmarc: "absent" }, { no_spf: -3, no_dmarc: -2 }],
      [
        "unknown facts cost nothing",
        { ageDays: null, domainListed: null, spf: "unknown", dmarc: "unknown" },
        {},
      ],
      ["Null MX", { nullMx: true }, { null_mx: -10 }],
      ["certificate expiring", { certDaysToExpiry: 13 }, { cert_expiring: -5 }],
      ["certificate at 14 days", { certDaysToExpiry: 14 }, {}],
      ["typo", { didYouMean: "a@gmail.com" }, { email_typo: -20 }],
    ];
    for (const [name, change, expected] of cases) {
      it(name, () => {
        const base = rateLead(goodEmail, goodSite).factors.length;
        const rated = rateLead(goodEmail, goodSite, { ...neutral, ...change });
        const added = Object.fromEntries(rated.factors.slice(base).map((f) => [f.code, f.points]));
        assert.deepEqual(added, expected);
      });
    }

    it("keeps ratings without domain facts as they were", () => {
      assert.deepEqual(rateLead(goodEmail, goodSite, null), rateLead(goodEmail, goodSite));
    });

    it("explains the young-domain factor with its age", () => {
      const rated = rateLead(goodEmail, goodSite, { ...neutral, ageDays: 12 });
      assert.equal(rated.factors.at(-1)?.label, "Domain registered 12 days ago");
      assert.equal(rated.rating, 85);
    });
  });
});
