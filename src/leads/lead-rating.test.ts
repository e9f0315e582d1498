import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
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

  it("caps an undeliverable email at 20, the cap factor carrying the 20 points it took, and marks it invalid", () => {
    const r = rateLead({ ...goodEmail, status: "invalid", valid: false }, goodSite);
    assert.equal(r.validationStatus, "invalid");
    assert.equal(r.rating, 20);
    assert.equal(r.recommendation, "skip");
    // 0 for the email + 40 for the website, brought down to 20 by the cap.
    assert.deepEqual(r.factors.at(-1), {
      code: "cap_undeliverable",
      label: "Capped at 20: email undeliverable",
      points: -20,
    });
  });

  it("adds no cap factor when the cap moves nothing", () => {
    const r = rateLead({ ...goodEmail, status: "invalid", valid: false }, null);
    assert.equal(r.rating, 0);
    assert.ok(!r.factors.some((f) => f.code === "cap_undeliverable"));
  });

  it("never lets a missing website outrank one that was given: gmail without a website vs a company site", () => {
    // The firewalled newcomer's case: both emails came back undeliverable.
    const undeliverable: EmailOutcome = { ...goodEmail, status: "invalid", valid: false, risk: "high" };
    const gmail = rateLead({ ...undeliverable, free: true }, null);
    const company = rateLead(undeliverable, {
      ...goodSite,
      status: "error",
      httpStatus: null,
      sslValid: null,
      isParked: null,
    });
    assert.equal(gmail.rating, 0);
    assert.equal(company.rating, 0);
    const unverified: EmailOutcome = { ...goodEmail, valid: null, status: "unknown", risk: "medium" };
    const gmailUnverified = rateLead({ ...unverified, free: true }, null);
    const companyLive = rateLead(unverified, goodSite);
    assert.ok(
      gmailUnverified.rating < companyLive.rating,
      `${gmailUnverified.rating} < ${companyLive.rating}`,
    );
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

  it("rates a lead without a website on its email alone: no website is neutral, 0 points", () => {
    const r = rateLead(goodEmail, null);
    assert.equal(r.validationStatus, "valid");
    assert.equal(r.rating, 60);
    assert.deepEqual(
      r.factors.find((f) => f.code === "no_website"),
      { code: "no_website", label: "No website given: nothing to add or take away", points: 0 },
    );
  });

  it("shows the 0 floor as a factor carrying the points it gave back", () => {
    const r = rateLead(
      { ...goodEmail, valid: false, status: "risky", disposable: true, role: true, risk: "high" },
      null,
    );
    assert.equal(r.rating, 0);
    assert.deepEqual(r.factors.at(-1), {
      code: "rating_floor",
      label: "Raised to the floor of 0",
      points: 30,
    });
  });

  it("shows the 100 ceiling as a factor carrying the points it took", () => {
    const r = rateLead(goodEmail, goodSite, {
      ageDays: 10 * 365,
      domainListed: false,
      mxListed: false,
      spf: "present",
      dmarc: "present",
      nullMx: false,
      certDaysToExpiry: 90,
      didYouMean: null,
    });
    assert.equal(r.rating, 100);
    assert.deepEqual(r.factors.at(-1), { code: "rating_ceiling", label: "Capped at 100", points: -5 });
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
      [
        "established domain (over 100: the ceiling takes it back)",
        { ageDays: 5 * 365 },
        { domain_established: 5, rating_ceiling: -5 },
      ],
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

describe("lead rating: the sum of its parts (property)", () => {
  const emailArb = fc.record({
    status: fc.constantFrom("valid", "invalid", "risky", "unknown"),
    valid: fc.constantFrom(true, false, null),
    catchAll: fc.boolean(),
    disposable: fc.boolean(),
    role: fc.boolean(),
    free: fc.boolean(),
    risk: fc.constantFrom("low", "medium", "high"),
  }) as fc.Arbitrary<EmailOutcome>;
  const siteArb = fc.option(
    fc.record({
      status: fc.constantFrom("active", "inactive", "error"),
      httpStatus: fc.option(fc.integer({ min: 100, max: 599 })),
      sslValid: fc.constantFrom(true, false, null),
      isParked: fc.constantFrom(true, false, null),
      parkedKind: fc.constantFrom("parked", "placeholder", null, undefined),
      responseTimeMs: fc.integer({ min: 0, max: 60_000 }),
      redirectCount: fc.integer({ min: 0, max: 20 }),
    }) as fc.Arbitrary<WebsiteOutcome>,
  );
  const domainArb = fc.option(
    fc.record({
      ageDays: fc.option(fc.integer({ min: 0, max: 20_000 })),
      domainListed: fc.constantFrom(true, false, null),
      mxListed: fc.constantFrom(true, false, null),
      spf: fc.constantFrom("present", "absent", "unknown"),
      dmarc: fc.constantFrom("present", "absent", "unknown"),
      nullMx: fc.constantFrom(true, false, null),
      certDaysToExpiry: fc.option(fc.integer({ min: -30, max: 400 })),
      didYouMean: fc.option(fc.constant("a@gmail.com")),
    }) as fc.Arbitrary<DomainOutcome>,
  );
  const clamp = (n: number) => Math.max(0, Math.min(100, n));

  it("rates every input as the clamped sum of its factors' points, which is the plain sum", () => {
    fc.assert(
      fc.property(emailArb, siteArb, domainArb, (email, site, domain) => {
        const r = rateLead(email, site, domain);
        const sum = r.factors.reduce((s, f) => s + f.points, 0);
        assert.equal(r.rating, clamp(sum));
        assert.equal(r.rating, sum, "caps and bounds carry the points they moved");
        assert.ok(Number.isInteger(r.rating));
        assert.equal(r.recommendation, recommendationFor(r.rating));
        assert.equal(r.quality, qualityFor(r.rating));
        if (email.status === "invalid") assert.ok(r.rating <= 20);
        for (const f of r.factors) if (f.points === 0) assert.ok(!/^(cap_|rating_)/.test(f.code), f.code);
      }),
      { seed: 20261128, numRuns: 2000 },
    );
  });

  it("never rates a lead higher for leaving out a website whose own factors net zero or more", () => {
    const unsettled = (r: { factors: { code: string; points: number }[] }) =>
      r.factors.filter((f) => !/^(cap_|rating_)/.test(f.code)).reduce((s, f) => s + f.points, 0);
    fc.assert(
      fc.property(emailArb, siteArb, domainArb, (email, site, domain) => {
        const without = rateLead(email, null, domain);
        assert.equal(without.factors.find((f) => f.code === "no_website")?.points, 0);
        if (!site) return;
        const withSite = rateLead(email, site, domain);
        const sitePoints = unsettled(withSite) - unsettled(without);
        if (sitePoints >= 0) assert.ok(withSite.rating >= without.rating);
        if (sitePoints <= 0) assert.ok(withSite.rating <= without.rating);
      }),
      { seed: 20261129, numRuns: 1000 },
    );
  });
});
