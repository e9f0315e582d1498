// POST /v1/widget/check-email and POST /v1/widget/confirm through the real app, on both dialects:
// origins, CORS, the public answer's shape, the deadline (a slow mail server answers unknown in
// time and the probe goes on), one charge per address, key and day, fail-open on a short balance,
// CAPTCHA, test mode without network, and the token's confirmation by the form's backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { waitFor } from "../support/wait-for.js";
import { SHOP, startWidgetWorld, WIDGET_DEADLINE_MS, type WidgetWorld } from "./widget-support.js";

const ANSWER_FIELDS = ["didYouMean", "disposable", "free", "reason", "role", "status", "token"];

for (const kind of dialects()) {
  describe(`widget check and confirm (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let w: WidgetWorld;
    let pk: string;
    let sk: string;
    const ACCT = "acct_widget";
    before(async () => {
      if (skip) return;
      w = await startWidgetWorld(kind);
      pk = (await w.keyOf(ACCT, { type: "publishable", allowedOrigins: [SHOP, "https://*.shop.test"] }))
        .api_key;
      sk = await w.h.apiKey(ACCT);
    });
    after(async () => w?.close());

    it("answers a CORS preflight for allowed origins only", { skip }, async () => {
      const preflight = (origin: string) =>
        w.h.app.inject({
          method: "OPTIONS",
          url: `/v1/widget/check-email?key=${pk}`,
          headers: {
            origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type",
          },
        });
      const ok = await preflight("https://eu.shop.test");
      assert.equal(ok.statusCode, 204);
      assert.equal(ok.headers["access-control-allow-origin"], "https://eu.shop.test");
      assert.match(String(ok.headers["access-control-allow-methods"]), /POST/);
      const refused = await preflight("https://evil.test");
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().error_code, "ORIGIN_NOT_ALLOWED");
      assert.equal(refused.headers["access-control-allow-origin"], undefined);
    });

    it("checks Origin, falls back to Referer, and refuses neither or another origin", { skip }, async () => {
      const ok = await w.check(pk, "alice@acme.test");
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.headers["access-control-allow-origin"], SHOP);
      const viaReferer = await w.check(pk, "alice@acme.test", {
        origin: null,
        referer: `${SHOP}/signup?plan=pro`,
      });
      assert.equal(viaReferer.statusCode, 200);
      for (const options of [
        { origin: null },
        { origin: "https://evil.test" },
        { origin: null, referer: "https://evil.test/x" },
      ]) {
        const res = await w.check(pk, "alice@acme.test", options);
        assert.equal(res.statusCode, 403, JSON.stringify(options));
        assert.equal(res.json().error_code, "ORIGIN_NOT_ALLOWED");
      }
    });

    it("answers only the public fields: a valid mailbox, a typo, a disposable address", {
      skip,
    }, async () => {
      const acmeSessions = () =>
        w.fake.smtp.commands.filter((c) => /^QUIT/i.test(c.line) && c.host === "127.0.0.2").length;
      const sessionsBefore = acmeSessions();
      let valid = (await w.check(pk, "bob@acme.test")).json();
      if (valid.reason === "deadline") {
        // On a loaded machine the first probe can outlast the 800 ms deadline: the widget then
        // fails open and the probe goes on, so the next look reads the finished probe.
        await waitFor(() => acmeSessions() > sessionsBefore, "the probe of bob@acme.test to finish", 10_000);
        valid = (await w.check(pk, "bob@acme.test")).json();
      }
      assert.deepEqual(Object.keys(valid).sort(), ANSWER_FIELDS);
      assert.equal(valid.status, "valid");
      assert.equal(valid.reason, "deliverable");
      const typo = (await w.check(pk, "jane@gmial.com")).json();
      assert.equal(typo.didYouMean, "jane@gmail.com");
      const disposable = (await w.check(pk, "temp@mailinator.com")).json();
      assert.equal(disposable.disposable, true);
      assert.equal(disposable.status, "risky");
      const bad = (await w.check(pk, "not an email")).json();
      assert.equal(bad.status, "invalid");
      const body = JSON.stringify([valid, typo, disposable]);
      for (const secret of ["127.0.0.2", "mx.acme.test", "250", "balance", ACCT])
        assert.equal(body.includes(secret), false, secret);
    });

    it("answers unknown/deadline in time for a slow mail server, then the finished probe at once", {
      skip,
    }, async () => {
      const started = Date.now();
      const first = (await w.check(pk, "sam@slow.test")).json();
      const tookMs = Date.now() - started;
      assert.equal(first.status, "unknown");
      assert.equal(first.reason, "deadline");
      assert.ok(tookMs < WIDGET_DEADLINE_MS + 500, `answered in ${tookMs} ms`);
      // The probe goes on: wait for the mail server to have answered RCPT, then look again.
      await waitFor(
        () => w.fake.smtp.commands.some((c) => /^QUIT/i.test(c.line) && c.host === "127.0.0.5"),
        "the slow mail server's session to end",
        10_000,
      );
      const again = Date.now();
      const second = (await w.check(pk, "sam@slow.test")).json();
      assert.equal(second.status, "valid");
      assert.ok(Date.now() - again < 200, "a recent result answers at once");
    });

    it("charges each address once per key and day, and never for a syntax error", { skip }, async () => {
      const before = await w.debits(ACCT);
      for (let i = 0; i < 3; i++) await w.check(pk, "carol@acme.test", { ip: `198.51.100.${i + 1}` });
      await w.check(pk, "CAROL@acme.test");
      await w.check(pk, "nope@@acme");
      assert.equal((await w.debits(ACCT)) - before, 1);
      await w.check(pk, "dave@grey.test");
      assert.equal((await w.debits(ACCT)) - before, 2);
    });

    it("fails open with unknown/unavailable when the balance cannot pay, and charges nothing", {
      skip,
    }, async () => {
      const poor = "acct_widget_poor";
      const poorPk = (await w.keyOf(poor, { type: "publishable", allowedOrigins: [SHOP] })).api_key;
      const balance = await w.balanceMilli(poor);
      await w.h.services.credits.debit({ accountId: poor, amountMilli: balance, reason: "drain" });
      const debits = await w.debits(poor);
      const res = await w.check(poorPk, "alice@acme.test");
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().status, "unknown");
      assert.equal(res.json().reason, "unavailable");
      assert.equal(await w.debits(poor), debits);
      assert.equal(await w.balanceMilli(poor), 0);
    });

    it("takes only publishable keys, and refuses a revoked one on the next request", { skip }, async () => {
      const withSecret = await w.check(sk, "alice@acme.test");
      assert.equal(withSecret.statusCode, 403);
      assert.equal(withSecret.json().error_code, "INSUFFICIENT_PERMISSIONS");
      const created = await w.keyOf(ACCT, { type: "publishable", allowedOrigins: [SHOP] });
      assert.equal((await w.check(created.api_key, "alice@acme.test")).statusCode, 200);
      await w.h.app.inject({
        method: "DELETE",
        url: `/v1/auth/keys/${created.key_id}`,
        headers: { authorization: `Bearer ${await w.h.token(ACCT)}` },
      });
      assert.equal((await w.check(created.api_key, "alice@acme.test")).statusCode, 401);
    });

    it("verifies a Turnstile or hCaptcha token server-side when the key requires one", { skip }, async () => {
      for (const captcha of ["turnstile", "hcaptcha"]) {
        const key = (
          await w.keyOf(ACCT, { type: "publishable", allowedOrigins: [SHOP], widget: { captcha } })
        ).api_key;
        const missing = await w.check(key, "alice@acme.test");
        assert.equal(missing.statusCode, 403, captcha);
        const token = w.captcha.issue();
        const solved = await w.check(key, "alice@acme.test", { captchaToken: token, ip: "198.51.100.77" });
        assert.equal(solved.statusCode, 200, solved.body);
        const replayed = await w.check(key, "alice@acme.test", { captchaToken: token });
        assert.equal(replayed.statusCode, 403);
        assert.match(replayed.json().details.reason, /duplicate|already-seen/);
        const seen = w.captcha.requests.find((r) => r.response === token);
        assert.equal(seen?.remoteip, "198.51.100.77");
        assert.equal(seen?.provider, captcha);
      }
    });

    it("gives test-mode keys scripted answers without opening a socket or charging", { skip }, async () => {
      const key = (
        await w.keyOf(ACCT, { type: "publishable", mode: "test", allowedOrigins: ["http://localhost:5173"] })
      ).api_key;
      const dnsBefore = w.fake.dns.queries.length;
      const smtpBefore = w.fake.smtp.totalConnections();
      const debits = await w.debits(ACCT);
      const answers: Record<string, string> = {};
      for (const email of [
        "valid@x.example",
        "invalid@x.example",
        "catchall@x.example",
        "disposable@mailinator.com",
      ]) {
        const res = await w.check(key, email, { origin: "http://localhost:5173" });
        assert.equal(res.statusCode, 200, res.body);
        answers[email] = `${res.json().status}/${res.json().reason}`;
      }
      assert.deepEqual(answers, {
        "valid@x.example": "valid/deliverable",
        "invalid@x.example": "invalid/mailbox_not_found",
        "catchall@x.example": "risky/accept_all",
        "disposable@mailinator.com": "risky/disposable",
      });
      assert.equal(w.fake.dns.queries.length, dnsBefore, "no DNS query");
      assert.equal(w.fake.smtp.totalConnections(), smtpBefore, "no SMTP connection");
      assert.equal(await w.debits(ACCT), debits, "never charged");
    });

    it("confirms a token for the form's backend, free, and says why a bad one is refused", {
      skip,
    }, async () => {
      const seen = (await w.check(pk, "alice@acme.test")).json();
      const balance = await w.balanceMilli(ACCT);
      const confirm = (token: string, email: string, key = sk) =>
        w.h.app.inject({
          method: "POST",
          url: "/v1/widget/confirm",
          headers: { "x-api-key": key },
          payload: { token, email },
        });
      const ok = await confirm(seen.token, "Alice@acme.test");
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().status, seen.status);
      assert.equal(ok.json().fresh, false);
      assert.equal(await w.balanceMilli(ACCT), balance, "confirmation is free");

      const refused = async (token: string, email: string, reason: string, key = sk) => {
        const res = await confirm(token, email, key);
        assert.equal(res.statusCode, 422, `${reason}: ${res.body}`);
        assert.equal(res.json().error_code, "VALIDATION_ERROR");
        assert.equal(res.json().details.reason, reason);
      };
      const [v, body, sig] = seen.token.split(".");
      await refused(`${v}.${body}.${sig.slice(0, -3)}abc`, "alice@acme.test", "forged");
      await refused("made-up", "alice@acme.test", "forged");
      await refused(seen.token, "bob@acme.test", "email_mismatch");
      await refused(seen.token, "alice@acme.test", "key_mismatch", await w.h.apiKey("acct_someone_else"));
      const withPk = await confirm(seen.token, "alice@acme.test", pk);
      assert.equal(withPk.statusCode, 403, "a publishable key cannot confirm");

      const slow = (await w.check(pk, "unknown-person@slow.test")).json();
      assert.equal(slow.status, "unknown");
      const fresh = await confirm(slow.token, "unknown-person@slow.test");
      assert.equal(fresh.json().fresh, true);

      w.advance(15 * 60_000 + 1000);
      await refused(seen.token, "alice@acme.test", "expired");
    });
  });
}
