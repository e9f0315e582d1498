// The signup-form widget in Chromium: a real page on a second origin (http://shop.test:<port>,
// mapped to loopback) loads /widget.js from the service (a `leadcheck serve` subprocess) with a
// publishable key; its backend confirms the token with a secret key, as docs/widget.md shows. A page
// on an origin the key does not allow (http://evil.test:<port>) is refused by CORS and by the
// Origin check. Pages are saved to test-artifacts/screenshots/widget-*.png after an axe check.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { testToken } from "../support/harness.js";
import {
  type Browser,
  browserSkipReason,
  launchBrowser,
  type Service,
  startService,
  text,
} from "./browser-support.js";

const skip = browserSkipReason();
const USER = "widget_shop";
const SERVER_DEADLINE_MS = 1000;
const SLOW_RCPT_MS = 1800;

interface Shop {
  server: Server;
  port: number;
  /** What the shop's backend heard from POST /v1/widget/confirm. */
  confirmations: { email: string; status: number; body: Record<string, unknown> }[];
}

function signupPage(serviceUrl: string, pk: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Create your account</title>
<style>
body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#111827}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{width:100%;padding:.5rem;font-size:1rem;border:1px solid #4b5563;border-radius:4px;box-sizing:border-box}
button[type=submit]{margin-top:1.25rem;padding:.6rem 1.2rem;font-size:1rem;background:#1d4ed8;color:#fff;border:0;border-radius:4px}
</style></head>
<body><main><h1>Create your account</h1>
<form method="post" action="/signup">
<label for="name">Name</label><input id="name" name="name" autocomplete="name">
<label for="email">Work email</label><input id="email" name="email" type="email" required autocomplete="email">
<button type="submit">Sign up</button>
</form></main>
<script src="${serviceUrl}/widget.js" data-key="${pk}" data-block="invalid disposable" async></script>
</body></html>`;
}

async function startShop(serviceUrl: string, pk: () => string, sk: () => string): Promise<Shop> {
  const confirmations: Shop["confirmations"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      if (req.method === "POST" && req.url === "/signup") {
        // The form's backend: confirm the token the widget put in the form, with the secret key.
        const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
        const email = form.get("email") ?? "";
        const confirm = await fetch(`${serviceUrl}/v1/widget/confirm`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": sk() },
          body: JSON.stringify({ token: form.get("leadcheck_token") ?? "-", email }),
        });
        const body = (await confirm.json()) as Record<string, unknown>;
        confirmations.push({ email, status: confirm.status, body });
        const verdict = confirm.ok
          ? `${body.status} (${body.reason})${body.fresh ? ", looked up again" : ""}`
          : `refused: ${(body.details as { reason?: string })?.reason}`;
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Welcome</title></head>
<body><main><h1>Thanks for signing up</h1><p data-testid="confirmed">Backend confirmation: ${verdict}</p></main></body></html>`);
        return;
      }
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(signupPage(serviceUrl, pk()));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, port: (server.address() as { port: number }).port, confirmations };
}

describe("the signup-form widget in Chromium", { skip }, () => {
  let service: Service;
  let shop: Shop;
  let browser: Browser;
  let pk = "";
  let sk = "";
  let shopUrl = "";
  let evilUrl = "";

  before(async () => {
    service = await startService(
      {
        WIDGET_DEADLINE_MS: String(SERVER_DEADLINE_MS),
        WIDGET_TOKEN_SECRET: "browser-widget-test-secret-0123456789",
      },
      {
        zone: {
          "slow.test": { MX: [{ exchange: "mx.slow.test", priority: 10 }] },
          "mx.slow.test": { A: ["127.0.0.5"] },
        },
        mx: { "127.0.0.5": { mailboxes: ["sam@slow.test"], firstRcptDelayMs: SLOW_RCPT_MS } },
      },
    );
    shop = await startShop(
      service.url,
      () => pk,
      () => sk,
    );
    shopUrl = `http://shop.test:${shop.port}`;
    evilUrl = `http://evil.test:${shop.port}`;
    const auth = { authorization: `Bearer ${await testToken(USER)}`, "content-type": "application/json" };
    const create = async (body: Record<string, unknown>) => {
      const res = await fetch(`${service.url}/v1/auth/keys`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 201);
      return ((await res.json()) as { api_key: string }).api_key;
    };
    pk = await create({ name: "signup form", type: "publishable", allowedOrigins: [shopUrl] });
    sk = await create({ name: "shop backend", permissions: ["checks:write"] });
    browser = await launchBrowser(["--host-resolver-rules=MAP shop.test 127.0.0.1, MAP evil.test 127.0.0.1"]);
  });
  after(async () => {
    await browser?.close();
    shop?.server.close();
    await service?.close();
  });

  const openSignup = async (url = shopUrl): Promise<Page> => {
    const page = browser.page;
    await page.goto(`${url}/`);
    await page.waitForFunction(`Boolean(document.getElementById("email")?.leadcheckAttached)`);
    return page;
  };

  it("serves /widget.js as cacheable JavaScript", async () => {
    const res = await fetch(`${service.url}/widget.js`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get("content-type")), /^text\/javascript/);
    assert.match(String(res.headers.get("cache-control")), /max-age=\d+/);
    const etag = String(res.headers.get("etag"));
    const again = await fetch(`${service.url}/widget.js`, { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304);
  });

  it("suggests the fix for a typo and applies it on one click", async () => {
    const page = await openSignup();
    await page.getByLabel("Work email").fill("jane@gmial.com");
    await page.getByLabel("Name").focus();
    const fix = page.getByRole("button", { name: "jane@gmail.com" });
    await fix.waitFor();
    assert.match(await text(page.locator(".leadcheck-message")), /Did you mean jane@gmail\.com\?/);
    await browser.screenshot(page, "widget-typo");
    await fix.click();
    assert.equal(await page.getByLabel("Work email").inputValue(), "jane@gmail.com");
  });

  it("blocks a disposable address with an accessible message, and keeps the page", async () => {
    const page = await openSignup();
    const email = page.getByLabel("Work email");
    await email.fill("temp@mailinator.com");
    await page.getByRole("button", { name: "Sign up" }).click();
    const message = page.locator(".leadcheck-message");
    await message.filter({ hasText: "disposable" }).waitFor();
    assert.equal(await page.evaluate(`document.getElementById("email").validity.customError`), true);
    const describedBy = String(await email.getAttribute("aria-describedby"));
    assert.equal(await message.getAttribute("id"), describedBy);
    assert.equal(await message.getAttribute("aria-live"), "polite");
    assert.equal(new URL(page.url()).pathname, "/");
    await browser.screenshot(page, "widget-disposable");
  });

  it("submits within the deadline when the mail server is slow, and the backend gets a fresh verdict", async () => {
    const page = await openSignup();
    await page.getByLabel("Work email").fill("sam@slow.test");
    const started = Date.now();
    await Promise.all([
      page.waitForURL(`${shopUrl}/signup`),
      page.getByRole("button", { name: "Sign up" }).click(),
    ]);
    const tookMs = Date.now() - started;
    assert.ok(tookMs < 3000, `the form went through after ${tookMs} ms (widget deadline 3000 ms)`);
    const seen = shop.confirmations.at(-1)!;
    assert.equal(seen.email, "sam@slow.test");
    assert.equal(seen.status, 200);
    assert.equal(
      seen.body.fresh,
      true,
      "the visitor saw unknown, so the backend's answer was looked up again",
    );
    await page.getByTestId("confirmed").waitFor();
  });

  it("confirms the token of a good address with the backend's secret key", async () => {
    const page = await openSignup();
    await page.getByLabel("Name").fill("Alice");
    await page.getByLabel("Work email").fill("alice@acme.test");
    await page.getByLabel("Name").focus();
    await page.waitForFunction(`Boolean(document.querySelector('input[name="leadcheck_token"]')?.value)`);
    await browser.screenshot(page, "widget-form-checked");
    await Promise.all([
      page.waitForURL(`${shopUrl}/signup`),
      page.getByRole("button", { name: "Sign up" }).click(),
    ]);
    const confirmed = page.getByTestId("confirmed");
    assert.equal(await text(confirmed), "Backend confirmation: valid (deliverable)");
    const seen = shop.confirmations.at(-1)!;
    assert.equal(seen.body.status, "valid");
    assert.equal(seen.body.fresh, false);
    await browser.screenshot(page, "widget-confirmed");
  });

  it("refuses a page on another origin, by CORS and by the Origin check", async () => {
    const page = await openSignup(evilUrl);
    await page.getByLabel("Work email").fill("alice@acme.test");
    await page.getByLabel("Name").focus();
    // Chromium hides preflights from page events; it reports the refusal on the console.
    const refusal = () =>
      browser.problems.find((p) => /blocked by CORS policy/.test(p) && p.includes(evilUrl));
    for (let i = 0; i < 200 && !refusal(); i++) await page.waitForTimeout(25);
    assert.match(String(refusal()), /preflight/);
    // A simple request (no preflight) is refused by the Origin check, and the page cannot read it.
    const outcome =
      await page.evaluate(`fetch(${JSON.stringify(`${service.url}/v1/widget/check-email?key=${pk}`)}, {
        method: "POST", headers: { "content-type": "text/plain" }, body: '{"email":"alice@acme.test"}' })
      .then(() => "read", () => "blocked")`);
    assert.equal(outcome, "blocked");
    for (const [method, headers] of [
      ["OPTIONS", { origin: evilUrl, "access-control-request-method": "POST" }],
      ["POST", { origin: evilUrl, "content-type": "application/json" }],
    ] as const) {
      const direct = await fetch(`${service.url}/v1/widget/check-email?key=${pk}`, {
        method,
        headers,
        ...(method === "POST" ? { body: JSON.stringify({ email: "alice@acme.test" }) } : {}),
      });
      assert.equal(direct.status, 403, method);
      assert.equal(direct.headers.get("access-control-allow-origin"), null);
      assert.equal(((await direct.json()) as { error_code: string }).error_code, "ORIGIN_NOT_ALLOWED");
    }
    assert.equal(
      await text(page.locator(".leadcheck-message")),
      "",
      "nothing is shown: the form stays usable",
    );
    await browser.screenshot(page, "widget-other-origin");
    // The refused cross-origin requests are this test's point, not a fault of the page.
    for (let i = browser.problems.length - 1; i >= 0; i--)
      if (/blocked by CORS policy|Failed to fetch/.test(browser.problems[i]!)) browser.problems.splice(i, 1);
  });

  it("left no page errors behind", () => {
    assert.deepEqual(browser.problems, []);
  });
});
