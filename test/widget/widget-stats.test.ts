// GET /v1/widget/stats on both dialects, after real widget requests through the app: checks per
// UTC day, flagged answers by reason (typo, disposable, invalid), and the refusals by cause (per-IP
// rate, the key's daily cap, forged or missing origins and preflights, CAPTCHA failures). A
// test-mode key's counts are test data, reported apart (livemode false).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { SHOP, startWidgetWorld, type WidgetWorld } from "./widget-support.js";

const DAY_MS = 86_400_000;

for (const kind of dialects()) {
  describe(`widget stats (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let w: WidgetWorld;
    let bearer: string;
    const ACCT = "acct_widget_stats";
    const keys = { limited: { id: "", pk: "" }, captcha: { id: "", pk: "" }, test: { id: "", pk: "" } };

    const stats = async (query = "", headers?: Record<string, string>) => {
      const res = await w.h.app.inject({
        method: "GET",
        url: `/v1/widget/stats${query}`,
        headers: headers ?? { authorization: `Bearer ${bearer}` },
      });
      return res;
    };
    const statuses = async (sends: Promise<{ statusCode: number }>[]) =>
      (await Promise.all(sends)).map((r) => r.statusCode);

    before(async () => {
      if (skip) return;
      w = await startWidgetWorld(kind);
      bearer = await w.h.token(ACCT);
      const limited = await w.keyOf(ACCT, {
        type: "publishable",
        allowedOrigins: [SHOP],
        widget: { perIpPerMinute: 3, dailyCap: 3 },
      });
      const captcha = await w.keyOf(ACCT, {
        type: "publishable",
        allowedOrigins: [SHOP],
        widget: { captcha: "turnstile" },
      });
      const test = await w.keyOf(ACCT, {
        type: "publishable",
        mode: "test",
        allowedOrigins: ["http://localhost:5173"],
      });
      keys.limited = { id: limited.key_id, pk: limited.api_key };
      keys.captcha = { id: captcha.key_id, pk: captcha.api_key };
      keys.test = { id: test.key_id, pk: test.api_key };
    });
    after(async () => w?.close());

    it("counts answers, flags by reason and refusals by cause after real widget requests", {
      skip,
    }, async () => {
      const pk = keys.limited.pk;
      // Four answers: valid, a typo, a disposable address, a malformed one (not charged).
      assert.deepEqual(
        await statuses([
          w.check(pk, "bob@acme.test", { ip: "198.51.100.1" }),
          w.check(pk, "jane@gmial.com", { ip: "198.51.100.2" }),
          w.check(pk, "temp@mailinator.com", { ip: "198.51.100.3" }),
          w.check(pk, "not-an-address", { ip: "198.51.100.4" }),
        ]),
        [200, 200, 200, 200],
      );
      // The fourth address to charge today passes the key's daily cap of 3.
      assert.equal((await w.check(pk, "carol@acme.test", { ip: "198.51.100.5" })).statusCode, 429);
      // One IP: three answers (bob is charged already), the fourth over the per-IP rate.
      const fromOneIp = [];
      for (let i = 0; i < 4; i++)
        fromOneIp.push((await w.check(pk, "bob@acme.test", { ip: "198.51.100.6" })).statusCode);
      assert.deepEqual(fromOneIp, [200, 200, 200, 429]);
      // Origins: two forged, one with neither Origin nor Referer, one refused preflight.
      assert.deepEqual(
        await statuses([
          w.check(pk, "bob@acme.test", { origin: "https://evil.test" }),
          w.check(pk, "bob@acme.test", { origin: null, referer: "https://evil.test/signup" }),
          w.check(pk, "bob@acme.test", { origin: null }),
          w.h.app.inject({
            method: "OPTIONS",
            url: `/v1/widget/check-email?key=${pk}`,
            headers: { origin: "https://evil.test", "access-control-request-method": "POST" },
          }),
        ]),
        [403, 403, 403, 403],
      );
      // The CAPTCHA key: one request without a token, one solved.
      assert.equal((await w.check(keys.captcha.pk, "alice@acme.test")).statusCode, 403);
      const solved = await w.check(keys.captcha.pk, "alice@acme.test", { captchaToken: w.captcha.issue() });
      assert.equal(solved.statusCode, 200, solved.body);

      const res = await stats(`?keyId=${keys.limited.id}`);
      assert.equal(res.statusCode, 200, res.body);
      const report = res.json();
      const today = new Date(Date.now()).toISOString().slice(0, 10);
      assert.equal(report.keyId, keys.limited.id);
      assert.equal(report.livemode, true);
      assert.equal(report.to, today);
      assert.equal(report.days.length, 30);
      assert.deepEqual(report.days.at(-1), { date: today, checks: 7, flagged: 3, capHits: 6 });
      assert.ok(report.days.slice(0, -1).every((d: { checks: number }) => d.checks === 0));
      assert.deepEqual(report.totals, { checks: 7, charged: 3, unknown: 0, unpaid: 0 });
      assert.deepEqual(report.flagged, { typo: 1, disposable: 1, invalid: 1, role: 0 });
      assert.deepEqual(report.capHits, {
        perIpPerMinute: 1,
        perEmailPerMinute: 0,
        distinctEmailsPerIpPerDay: 0,
        dailyCap: 1,
        origin: 4,
        captcha: 0,
      });

      // Every key of the live space: the CAPTCHA key's one answer and one failure added.
      const all = (await stats("?days=7")).json();
      assert.equal(all.keyId, null);
      assert.equal(all.days.length, 7);
      assert.equal(all.totals.checks, 8);
      assert.equal(all.capHits.captcha, 1);
      assert.equal(all.capHits.origin, 4);
    });

    it("reports a test-mode key's counts apart, as test data", { skip }, async () => {
      const res = await w.check(keys.test.pk, "valid@example.com", { origin: "http://localhost:5173" });
      assert.equal(res.statusCode, 200, res.body);
      const invalid = await w.check(keys.test.pk, "invalid@example.com", { origin: "http://localhost:5173" });
      assert.equal(invalid.json().status, "invalid");
      const report = (await stats(`?keyId=${keys.test.id}`)).json();
      assert.equal(report.livemode, false);
      assert.equal(report.totals.checks, 2);
      assert.equal(report.totals.charged, 0);
      assert.equal(report.flagged.invalid, 1);
      const live = (await stats()).json();
      assert.equal(live.livemode, true);
      assert.equal(live.totals.checks, 8, "the live space's figures leave test keys out");
    });

    it("puts each count on its UTC day", { skip }, async () => {
      w.advance(DAY_MS);
      try {
        const res = await w.check(keys.limited.pk, "alice@acme.test", { ip: "198.51.100.9" });
        assert.equal(res.statusCode, 200, res.body);
        const report = (await stats(`?keyId=${keys.limited.id}&days=2`)).json();
        assert.deepEqual(
          report.days.map((d: { checks: number }) => d.checks),
          [7, 1],
        );
      } finally {
        w.advance(-DAY_MS);
      }
    });

    it("counts answers the balance could not pay as unpaid and unknown (fail open)", { skip }, async () => {
      const poor = "acct_widget_stats_poor";
      const key = await w.keyOf(poor, { type: "publishable", allowedOrigins: [SHOP] });
      await w.h.services.credits.debit({
        accountId: poor,
        amountMilli: await w.balanceMilli(poor),
        reason: "drain",
      });
      const res = await w.check(key.api_key, "alice@acme.test");
      assert.equal(res.json().reason, "unavailable");
      const report = (
        await stats(`?keyId=${key.key_id}`, { authorization: `Bearer ${await w.h.token(poor)}` })
      ).json();
      assert.deepEqual(report.totals, { checks: 1, charged: 0, unknown: 1, unpaid: 1 });
    });

    it("refuses other accounts' keys, secret keys, keys without credits:read and bad windows", {
      skip,
    }, async () => {
      const other = await w.keyOf("acct_widget_stats_other", {
        type: "publishable",
        allowedOrigins: [SHOP],
      });
      assert.equal((await stats(`?keyId=${other.key_id}`)).statusCode, 404);
      assert.equal((await stats("?keyId=key_missing")).statusCode, 404);
      const secret = await w.keyOf(ACCT, { type: "secret" });
      assert.equal((await stats(`?keyId=${secret.key_id}`)).statusCode, 404);
      const narrow = await w.keyOf(ACCT, { type: "secret", permissions: ["checks:write"] });
      const refused = await stats("", { "x-api-key": narrow.api_key });
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().details.required, "credits:read");
      const reader = await w.keyOf(ACCT, { type: "secret", permissions: ["credits:read"] });
      const read = await stats("", { "x-api-key": reader.api_key });
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.json().totals.checks, 8, "tomorrow is outside the window");
      assert.equal((await stats("?days=91")).statusCode, 422);
      assert.equal((await stats("?days=0")).statusCode, 422);
    });
  });
}
