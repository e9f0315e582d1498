// Single sign-on in Chromium against the real service (`leadcheck serve`) and a real OpenID
// provider (oidc-provider) on loopback: the browser goes to /v1/auth/sso/login, through the
// provider's authorization endpoint and prompts, back to the callback, and lands on the dashboard
// with an HttpOnly session cookie the page's script cannot read but its requests carry; a write
// needs the session's CSRF token; logout ends the session on the server. The dashboard opens on
// that cookie by itself: no key pasted, its writes carry the CSRF token, and Sign out ends the
// session on the server.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeOidcProvider, startOidcProvider } from "../support/oidc-provider.js";
import { freePort } from "../support/process.js";
import { waitFor } from "../support/wait-for.js";
import {
  type Browser,
  browserSkipReason,
  launchBrowser,
  type Service,
  startService,
} from "./browser-support.js";

const skip = browserSkipReason();
/** The sign-in's round trip crosses three processes (Chromium, the service, this test's provider)
 *  in about ten requests; the page's default 15 s budget is for one step. */
const SIGN_IN_WITHIN_MS = 60_000;

describe("dashboard single sign-on in Chromium", { skip }, () => {
  let service: Service;
  let idp: FakeOidcProvider;
  let browser: Browser;

  before(async () => {
    const port = await freePort();
    const callback = `http://127.0.0.1:${port}/v1/auth/sso/callback`;
    idp = await startOidcProvider(callback, {
      sub: "sso_browser",
      email: "bea@example.test",
      email_verified: true,
    });
    service = await startService({
      PORT: String(port),
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      OIDC_REDIRECT_URL: callback,
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await idp?.close();
  });

  it("lands in the dashboard signed in, writes through the page, and Sign out ends the session", async () => {
    const page = await browser.newPage();
    await page.goto(`${service.url}/dashboard/`);
    // The page is on /dashboard/ already, so waitForURL would return at once and leave the whole
    // round trip (service -> provider's login and consent -> callback with its token exchange and
    // UserInfo -> the dashboard's first fetches) to one locator wait, which a loaded machine
    // outran. Await the callback's answer itself, with a budget of its own.
    const callback = page.waitForResponse((r) => r.url().startsWith(`${service.url}/v1/auth/sso/callback`), {
      timeout: SIGN_IN_WITHIN_MS,
    });
    await page.getByRole("link", { name: "Sign in with single sign-on" }).click();
    const answer = await callback;
    assert.equal(
      answer.status(),
      302,
      `the callback refused the sign-in: ${await answer.text().catch(() => "")}`,
    );
    await page.getByTestId("my-role").filter({ hasText: "owner" }).waitFor({ timeout: SIGN_IN_WITHIN_MS });
    assert.match(
      (await page.getByTestId("signed-in-as").textContent()) ?? "",
      /sso_browser.*bea@example\.test/s,
    );
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Team" }).click();
    const invite = page.getByTestId("invite-form");
    await invite.getByTestId("invite-email").fill("colleague@example.test");
    await invite.getByTestId("invite-submit").click();
    await page.getByTestId("invitation-url").waitFor();
    await browser.screenshot(page, "sso-team");
    await page.reload();
    await page.getByTestId("my-role").filter({ hasText: "owner" }).waitFor();

    await page.getByTestId("sign-out").click();
    await page.getByTestId("signin-notice").waitFor();
    await waitFor(
      async () =>
        (await page.evaluate(async () => (await fetch("/v1/auth/sso/session")).status)) === 401
          ? true
          : undefined,
      "the session to end on the server",
    );
    await page.reload();
    await page.getByRole("heading", { name: "Sign in to leadcheck" }).waitFor();
    await page.close();
    assert.deepEqual(browser.problems, []);
  });

  it("signs in through the provider, writes with the CSRF token, and logs out", async () => {
    const page = browser.page;
    await page.goto(`${service.url}/v1/auth/sso/login`, { timeout: SIGN_IN_WITHIN_MS });
    await page.waitForURL(`${service.url}/dashboard/**`);
    const cookies = await browser.context.cookies(service.url);
    const session = cookies.find((c) => c.name === "lc_session");
    assert.ok(session, "session cookie set");
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, "Lax");
    const pageCookies = await page.evaluate(
      () => (globalThis as unknown as { document: { cookie: string } }).document.cookie,
    );
    assert.equal(pageCookies.includes("lc_session"), false);

    const result = await page.evaluate(async () => {
      const me = (await (await fetch("/v1/auth/sso/session")).json()) as {
        subject: string;
        role: string;
        csrfToken: string;
      };
      const body = JSON.stringify({ email: "browser@lead.example", source: "manual" });
      const json = { "content-type": "application/json" };
      const without = (await fetch("/v1/leads", { method: "POST", headers: json, body })).status;
      const withToken = (
        await fetch("/v1/leads", { method: "POST", headers: { ...json, "x-csrf-token": me.csrfToken }, body })
      ).status;
      const out = (
        await fetch("/v1/auth/sso/logout", { method: "POST", headers: { "x-csrf-token": me.csrfToken } })
      ).status;
      const afterLogout = (await fetch("/v1/auth/sso/session")).status;
      return { subject: me.subject, role: me.role, without, withToken, out, afterLogout };
    });
    assert.deepEqual(result, {
      subject: "sso_browser",
      role: "owner",
      without: 403,
      withToken: 201,
      out: 200,
      afterLogout: 401,
    });
  });
});
