// Dashboard single sign-on against a real OpenID provider on loopback (oidc-provider), through
// its real authorization, interaction and token endpoints: the session cookie, CSRF on
// state-changing cookie requests, a wrong state, a replayed code and a server-side logout.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { type FakeOidcProvider, startOidcProvider } from "../support/oidc-provider.js";

// Never connected to: the test hands the provider's redirect to app.inject.
const REDIRECT = "http://localhost:8080/v1/auth/sso/callback";

for (const kind of dialects()) {
  describe(`dashboard SSO (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let idp: FakeOidcProvider;
    before(async () => {
      if (skip) return;
      idp = await startOidcProvider(REDIRECT, {
        sub: "sso_alice",
        email: "alice@example.test",
        email_verified: true,
      });
      h = await startHarness(kind, {
        ...UNLIMITED_RATE_ENV,
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: idp.clientId,
        OIDC_CLIENT_SECRET: idp.clientSecret,
        OIDC_REDIRECT_URL: REDIRECT,
      });
    });
    after(async () => {
      await h?.close();
      await idp?.close();
    });

    /** Starts a sign-in and follows the provider's redirects; returns the callback path and query. */
    async function throughProvider(): Promise<string> {
      const start = await h.app.inject({ method: "GET", url: "/v1/auth/sso/login" });
      assert.equal(start.statusCode, 302, start.body);
      let location = String(start.headers.location);
      assert.ok(location.startsWith(`${idp.issuer}/`), location);
      const jar = new Map<string, string>();
      for (let hop = 0; hop < 10; hop++) {
        if (location.startsWith(REDIRECT)) return location.slice("http://localhost:8080".length);
        const res = await fetch(new URL(location, idp.issuer), {
          redirect: "manual",
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
        });
        for (const set of res.headers.getSetCookie()) {
          const [pair] = set.split(";");
          const eq = pair!.indexOf("=");
          jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
        }
        assert.ok(res.status >= 300 && res.status < 400, `${location}: ${res.status} ${await res.text()}`);
        location = res.headers.get("location")!;
      }
      throw new Error("too many redirects");
    }

    async function signIn() {
      const res = await h.app.inject({ method: "GET", url: await throughProvider() });
      assert.equal(res.statusCode, 302, res.body);
      const setCookie = String(res.headers["set-cookie"]);
      const sessionId = /lc_session=([^;]+)/.exec(setCookie)![1]!;
      return { res, setCookie, cookie: `lc_session=${sessionId}` };
    }

    it("signs in through the provider into an HttpOnly, SameSite=Lax session cookie", { skip }, async () => {
      const settings = await h.app.inject({ method: "GET", url: "/v1/auth/sso" });
      assert.deepEqual(settings.json(), { enabled: true, loginUrl: "/v1/auth/sso/login" });
      const { res, setCookie, cookie } = await signIn();
      assert.equal(res.headers.location, "/dashboard/");
      assert.match(setCookie, /HttpOnly/);
      assert.match(setCookie, /SameSite=Lax/);
      // Secure is left off only because the callback is plain http://localhost (see sso.routes.ts).
      assert.doesNotMatch(setCookie, /Secure/);
      const me = await h.app.inject({ method: "GET", url: "/v1/auth/sso/session", headers: { cookie } });
      assert.equal(me.statusCode, 200, me.body);
      assert.equal(me.json().subject, "sso_alice");
      assert.equal(me.json().email, "alice@example.test");
      assert.equal(me.json().role, "owner");
      assert.ok(me.json().csrfToken);
      assert.equal(
        (await h.app.inject({ method: "GET", url: "/v1/leads", headers: { cookie } })).statusCode,
        200,
      );
    });

    it("refuses a state-changing cookie request without the session's CSRF token", { skip }, async () => {
      const { cookie } = await signIn();
      const csrf = (
        await h.app.inject({ method: "GET", url: "/v1/auth/sso/session", headers: { cookie } })
      ).json().csrfToken as string;
      const payload = { email: "csrf@lead.example", source: "manual" };
      const without = await h.app.inject({ method: "POST", url: "/v1/leads", headers: { cookie }, payload });
      assert.equal(without.statusCode, 403, without.body);
      assert.equal(without.json().details.reason, "csrf");
      const wrong = await h.app.inject({
        method: "POST",
        url: "/v1/leads",
        headers: { cookie, "x-csrf-token": `${csrf}x` },
        payload,
      });
      assert.equal(wrong.statusCode, 403);
      const right = await h.app.inject({
        method: "POST",
        url: "/v1/leads",
        headers: { cookie, "x-csrf-token": csrf },
        payload,
      });
      assert.equal(right.statusCode, 201, right.body);
    });

    it("refuses a wrong state and a replayed code", { skip }, async () => {
      const callback = await throughProvider();
      const wrongState = callback.replace(/state=[^&]+/, "state=not-the-state-we-started");
      const bad = await h.app.inject({ method: "GET", url: wrongState });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.equal(bad.json().details.reason, "state");

      const first = await h.app.inject({ method: "GET", url: callback });
      assert.equal(first.statusCode, 302, first.body);
      const replay = await h.app.inject({ method: "GET", url: callback });
      assert.equal(replay.statusCode, 400);
      assert.equal(replay.json().details.reason, "state");

      // The same code under a state we did start: the provider refuses the used code.
      const other = new URL(await throughProvider(), "http://localhost:8080");
      const code = new URL(callback, "http://localhost:8080").searchParams.get("code")!;
      other.searchParams.set("code", code);
      const reused = await h.app.inject({ method: "GET", url: `${other.pathname}${other.search}` });
      assert.equal(reused.statusCode, 400, reused.body);
      assert.equal(reused.json().details.reason, "token_exchange");
    });

    it("ends the session on the server at logout", { skip }, async () => {
      const { cookie } = await signIn();
      const csrf = (
        await h.app.inject({ method: "GET", url: "/v1/auth/sso/session", headers: { cookie } })
      ).json().csrfToken as string;
      const noCsrf = await h.app.inject({ method: "POST", url: "/v1/auth/sso/logout", headers: { cookie } });
      assert.equal(noCsrf.statusCode, 403);
      const out = await h.app.inject({
        method: "POST",
        url: "/v1/auth/sso/logout",
        headers: { cookie, "x-csrf-token": csrf },
      });
      assert.equal(out.statusCode, 200, out.body);
      assert.match(String(out.headers["set-cookie"]), /lc_session=;.*Max-Age=0/);
      // The old cookie value, replayed, is refused: the session ended server-side.
      const after = await h.app.inject({ method: "GET", url: "/v1/leads", headers: { cookie } });
      assert.equal(after.statusCode, 401);
    });
  });
}
