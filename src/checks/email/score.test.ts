import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EmailReason } from "./email.types.js";
import { emailTypeOf, type ScoreInput, scoreEmail } from "./score.js";

const base: ScoreInput = {
  reason: "deliverable",
  catchAll: false,
  disposable: false,
  free: false,
  role: false,
  implicitMx: false,
  gateway: false,
};

const CASES: [string, Partial<ScoreInput>, { status: string; risk: string; min: number; max: number }][] = [
  ["deliverable corporate mailbox", {}, { status: "valid", risk: "low", min: 85, max: 100 }],
  ["deliverable free mailbox", { free: true }, { status: "valid", risk: "low", min: 80, max: 90 }],
  ["deliverable role account", { role: true }, { status: "valid", risk: "low", min: 75, max: 85 }],
  [
    "catch-all domain",
    { reason: "accept_all", catchAll: true },
    { status: "risky", risk: "medium", min: 45, max: 65 },
  ],
  ["disposable but accepted", { disposable: true }, { status: "risky", risk: "high", min: 30, max: 50 }],
  ["mailbox full", { reason: "mailbox_full" }, { status: "risky", risk: "high", min: 10, max: 35 }],
  [
    "greylisted",
    { reason: "greylisted", catchAll: undefined },
    { status: "unknown", risk: "medium", min: 40, max: 50 },
  ],
  [
    "blocked",
    { reason: "ip_blocked", catchAll: undefined },
    { status: "unknown", risk: "medium", min: 40, max: 50 },
  ],
  ["mailbox not found", { reason: "mailbox_not_found" }, { status: "invalid", risk: "high", min: 0, max: 0 }],
  ["null MX", { reason: "null_mx" }, { status: "invalid", risk: "high", min: 0, max: 0 }],
  [
    "deliverable, catch-all unsettled",
    { catchAll: undefined },
    { status: "valid", risk: "low", min: 80, max: 86 },
  ],
  ["deliverable via implicit MX", { implicitMx: true }, { status: "valid", risk: "low", min: 75, max: 85 }],
];

describe("scoreEmail", () => {
  for (const [name, over, want] of CASES) {
    it(`scores a ${name} as ${want.status}, ${want.risk} risk, ${want.min}-${want.max}`, () => {
      const r = scoreEmail({ ...base, ...over });
      assert.equal(r.status, want.status);
      assert.equal(r.emailRisk, want.risk);
      assert.ok(r.emailScore >= want.min && r.emailScore <= want.max, `score ${r.emailScore}`);
      assert.ok(r.factors.length > 0);
    });
  }

  it("explains the score: the factors add up to it", () => {
    const r = scoreEmail({ ...base, role: true, free: true });
    assert.equal(
      r.factors.reduce((s, f) => s + f.points, 0),
      r.emailScore,
    );
    assert.deepEqual(
      r.factors.map((f) => f.code),
      ["deliverable", "role_account", "free_provider"],
    );
  });

  it("shows the 0 floor as a factor carrying the points it gave back, so the factors still add up", () => {
    const r = scoreEmail({
      ...base,
      reason: "mailbox_full",
      disposable: true,
      role: true,
      free: true,
      implicitMx: true,
    });
    assert.equal(r.emailScore, 0);
    assert.deepEqual(r.factors.at(-1), { code: "score_floor", points: 47 });
    assert.equal(
      r.factors.reduce((s, f) => s + f.points, 0),
      r.emailScore,
    );
  });

  it("marks accepted or proven mailboxes valid=true, refused ones false, and unknown ones null", () => {
    const accepted: EmailReason[] = ["deliverable", "accept_all", "tenant_accept_all", "rate_limited"];
    const refused: EmailReason[] = ["mailbox_not_found", "mailbox_disabled", "null_mx", "mailbox_full"];
    const unknown: EmailReason[] = [
      "greylisted",
      "smtp_timeout",
      "ip_blocked",
      "egress_blocked",
      "resolver_unavailable",
      "provider_unverifiable",
      "smtp_unknown_reply",
    ];
    for (const reason of accepted) assert.equal(scoreEmail({ ...base, reason }).valid, true, reason);
    for (const reason of refused) assert.equal(scoreEmail({ ...base, reason }).valid, false, reason);
    for (const reason of unknown) {
      assert.equal(scoreEmail({ ...base, reason }).valid, null, reason);
      assert.equal(scoreEmail({ ...base, reason }).status, "unknown", reason);
    }
  });

  it("types addresses as role, personal or corporate", () => {
    assert.equal(emailTypeOf(true, true, false), "role");
    assert.equal(emailTypeOf(false, true, false), "personal");
    assert.equal(emailTypeOf(false, false, true), "personal");
    assert.equal(emailTypeOf(false, false, false), "corporate");
  });
});
