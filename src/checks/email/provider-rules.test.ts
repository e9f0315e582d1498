import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  PROVIDER_RULES,
  parseProviderRules,
  providerRuleFor,
  providerRuleLookup,
  withProviderTimeouts,
} from "./provider-rules.js";
import type { SessionSettings } from "./smtp-handshake.js";

const base = {
  commandTimeoutMs: 15_000,
  totalDeadlineMs: 20_000,
} as SessionSettings;

describe("per-provider rules", () => {
  it("matches whole labels, longest suffix first, case and trailing dot ignored", () => {
    assert.equal(providerRuleFor("mx0a-001.PPHOSTED.com.")?.provider, "Proofpoint");
    assert.equal(providerRuleFor("notpphosted.com"), undefined);
    assert.equal(providerRuleFor("x.olc.protection.outlook.com")?.provider, "Outlook.com");
    assert.equal(providerRuleFor("cluster-a.mailcontrol.com")?.greetingTimeoutMinMs, 30_000);
    assert.equal(providerRuleFor("mx.example.org"), undefined);
  });

  it("reads the timeout fields from the data file and leaves them absent elsewhere", () => {
    const google = providerRuleFor("aspmx.l.google.com");
    assert.equal(google?.greetingTimeoutMinMs, undefined);
    assert.equal(google?.commandTimeoutMaxMs, undefined);
    for (const r of PROVIDER_RULES) {
      for (const ms of [r.greetingTimeoutMinMs, r.commandTimeoutMaxMs])
        assert.ok(ms === undefined || (Number.isInteger(ms) && ms > 0), r.mxSuffix);
    }
  });

  it("refuses a timeout that is not a positive whole number of milliseconds", () => {
    assert.throws(() => parseProviderRules([{ mxSuffix: "a.test", provider: "A", commandTimeoutMaxMs: 0 }]));
    assert.throws(() =>
      parseProviderRules([{ mxSuffix: "a.test", provider: "A", greetingTimeoutMinMs: 1.5 }]),
    );
  });

  it("builds a lookup over a test's own rules", () => {
    const ruleFor = providerRuleLookup(
      parseProviderRules([
        { mxSuffix: "fake.test", provider: "Fake", commandTimeoutMaxMs: 100 },
        { mxSuffix: "slow.fake.test", provider: "Slow fake", greetingTimeoutMinMs: 900 },
      ]),
    );
    assert.equal(ruleFor("mx.slow.fake.test")?.provider, "Slow fake");
    assert.equal(ruleFor("mx.fake.test")?.commandTimeoutMaxMs, 100);
    assert.equal(ruleFor("mx.fake.test")?.catchAllProbe, true);
  });

  it("leaves the settings alone for a provider without timeouts", () => {
    assert.equal(withProviderTimeouts(base, providerRuleFor("aspmx.l.google.com")), base);
    assert.equal(withProviderTimeouts(base, undefined), base);
  });

  it("caps command waits, RFC 5321's background stages included, but not the greeting", () => {
    const [rule] = parseProviderRules([{ mxSuffix: "a.test", provider: "A", commandTimeoutMaxMs: 5000 }]);
    const interactive = withProviderTimeouts(base, rule);
    assert.equal(interactive.commandTimeoutMs, 5000);
    assert.deepEqual(interactive.stageTimeoutsMs, { banner: 15_000 });
    const background = withProviderTimeouts(
      { ...base, stageTimeoutsMs: { banner: 300_000, mail: 300_000, rcpt: 300_000 } },
      rule,
    );
    assert.deepEqual(background.stageTimeoutsMs, { banner: 300_000, mail: 5000, rcpt: 5000 });
    assert.equal(background.totalDeadlineMs, base.totalDeadlineMs);
  });

  it("raises the greeting wait to the floor without touching the total deadline", () => {
    const [rule] = parseProviderRules([{ mxSuffix: "a.test", provider: "A", greetingTimeoutMinMs: 30_000 }]);
    const s = withProviderTimeouts(base, rule);
    assert.equal(s.stageTimeoutsMs?.banner, 30_000);
    assert.equal(s.commandTimeoutMs, 15_000);
    // The session bounds every wait by what is left of this deadline (smtp-session.ts timeoutMs).
    assert.equal(s.totalDeadlineMs, 20_000);
    // A floor below the background's five minutes changes nothing.
    const bg = withProviderTimeouts({ ...base, stageTimeoutsMs: { banner: 300_000 } }, rule);
    assert.equal(bg.stageTimeoutsMs?.banner, 300_000);
  });
});
