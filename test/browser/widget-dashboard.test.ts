// The widget's activity panel and test mode in the dashboard, in Chromium against the real service:
// after real widget requests (answers, a typo, a disposable and an undeliverable address, a per-IP
// refusal, forged origins) the Widget page shows the checks per day, the flags by reason and the
// refused requests with the API's numbers, and a test key's figures under the test-mode banner.
// The API keys page creates a test-mode secret key and marks it; the header's "Test data" switch
// opens the account's test data (with the banner on every page) and leaves it. Each page is checked
// with axe and saved at desktop width and at 375 px.
import assert from "node:assert/strict";
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
const USER = "widget_dashboard";
const SHOP = "https://shop.example.com";
const LOCAL = "http://localhost:3000";

describe("the widget's activity and test mode in the dashboard, in Chromium", { skip }, () => {
  let service: Service;
  let browser: Browser;
  let page: Page;
  let auth: Record<string, string>;

  const api = async (method: string, path: string, body?: unknown, headers = auth) => {
    const res = await fetch(service.url + path, {
      method,
      headers: { ...headers, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const widgetCheck = async (pk: string, email: string, origin: string) => {
    const res = await fetch(`${service.url}/v1/widget/check-email?key=${pk}`, {
      method: "POST",
      headers: { origin, "content-type": "application/json" },
      body: JSON.stringify({ email }),
    });
    return res.status;
  };
  const nav = (label: string) =>
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: label });

  before(async () => {
    [service, browser] = await Promise.all([
      startService({ WIDGET_TOKEN_SECRET: "widget-dashboard-test-secret-0123456789" }),
      launchBrowser(),
    ]);
    page = browser.page;
    auth = { authorization: `Bearer ${await testToken(USER)}` };
    await page.goto(await service.signinLink(USER));
    await page.getByRole("heading", { name: "Overview" }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it("shows checks per day, flags by reason and refused requests after real widget requests", async () => {
    const live = await api("POST", "/v1/auth/keys", {
      name: "Signup form",
      type: "publishable",
      allowedOrigins: [SHOP],
      widget: { perIpPerMinute: 5 },
    });
    assert.equal(live.status, 201, JSON.stringify(live.body));
    const test = await api("POST", "/v1/auth/keys", {
      name: "Local form",
      type: "publishable",
      mode: "test",
      allowedOrigins: [LOCAL],
    });
    const pk = String(live.body.api_key);
    const answered = [];
    for (const email of [
      "alice@acme.test",
      "jane@gmial.com",
      "temp@mailinator.com",
      "nobody@acme.test",
      "bob@acme.test",
      "carol@acme.test",
    ])
      answered.push(await widgetCheck(pk, email, SHOP));
    assert.deepEqual(answered, [200, 200, 200, 200, 200, 429], "the sixth is over 5 a minute per IP");
    assert.equal(await widgetCheck(pk, "alice@acme.test", "https://evil.example"), 403);
    assert.equal(await widgetCheck(pk, "alice@acme.test", "https://shop.example.com.evil.example"), 403);
    assert.equal(await widgetCheck(String(test.body.api_key), "valid@example.com", LOCAL), 200);

    await nav("Widget").click();
    const panel = page.getByTestId("widget-stats");
    assert.match(
      await text(panel.getByTestId("widget-stats-totals")),
      /^5 checks answered, 5 addresses charged, 0 answered unknown .*; 3 flagged, 3 requests refused\.$/,
    );
    assert.equal(await text(panel.getByTestId("cap-origin").locator("td")), "2");
    assert.equal(await text(panel.getByTestId("cap-perIpPerMinute").locator("td")), "1");
    assert.equal(await text(panel.getByTestId("cap-dailyCap").locator("td")), "0");
    const chart = panel.getByTestId("widget-checks-chart");
    assert.match(String(await chart.locator("canvas").getAttribute("aria-label")), /Checks 5 in total/);
    await chart.getByText("Show as a table").click();
    const today = new Date().toISOString().slice(5, 10);
    assert.deepEqual(
      (await chart.locator("tbody tr").allTextContents()).map((row) => row.trim()),
      [`${today}533`],
      "one day with checks: 5 checks, 3 flagged, 3 refused",
    );
    const flags = panel.getByTestId("widget-flags-chart");
    await flags.getByText("Show as a table").click();
    const flagRows = await flags.locator("tbody tr").allTextContents();
    for (const reason of ["Typo (fix offered)1", "Disposable1", "Invalid1", "Role address0"])
      assert.ok(
        flagRows.some((row) => row.startsWith(reason)),
        `${reason} in ${flagRows}`,
      );
    assert.equal(await panel.getByTestId("test-mode-banner").count(), 0, "live figures: no banner");
    await browser.screenshot(page, "widget-stats-desktop");
    await browser.screenshotNarrow(page, "widget-stats-phone");

    await panel.getByTestId("widget-stats-key").selectOption({ label: "Local form (test)" });
    await panel.getByTestId("test-mode-banner").waitFor();
    assert.match(
      await text(panel.getByTestId("widget-stats-totals")),
      /^1 check answered, 0 addresses charged/,
    );
    await browser.screenshot(page, "widget-stats-test-key");
    assert.deepEqual(browser.problems, []);
  });

  it("creates a test-mode secret key and marks it as one", async () => {
    await nav("API keys").click();
    const form = page.getByTestId("create-key-form");
    await form.getByLabel(/^Secret/).check();
    await form.getByLabel("Name", { exact: true }).fill("Sandbox backend");
    assert.equal(await form.getByTestId("test-mode").isChecked(), false);
    await form.getByTestId("test-mode").check();
    await form.getByTestId("test-mode-hint").waitFor();
    await form.getByRole("button", { name: "Create secret key" }).click();
    await page.getByTestId("created-key").filter({ hasText: "Sandbox backend" }).waitFor();
    const sk = await page.getByTestId("new-key-value").inputValue();
    assert.match(sk, /^sk_[A-Za-z0-9]{40}$/, "a test key has a live key's format");
    await page.getByRole("button", { name: "I have stored it" }).click();

    const row = page.getByTestId("key-row").filter({ hasText: "Sandbox backend" });
    assert.match(await text(row), /secret.*test/);
    const liveRow = page.getByTestId("key-row").filter({ hasText: "Signup form" });
    assert.doesNotMatch(await text(liveRow), /test/);
    assert.match(await text(page.getByTestId("test-mode-banner")), /2 keys below are in test mode/);
    const stored = ((await api("GET", "/v1/auth/keys")).body.keys as Record<string, unknown>[]).find(
      (key) => key.name === "Sandbox backend",
    );
    assert.deepEqual([stored?.type, stored?.mode], ["secret", "test"]);

    // The key works on the test data space: a lead made with it is test data.
    const lead = await api("POST", "/v1/leads", { email: "valid@sandbox.example" }, { "x-api-key": sk });
    assert.equal(lead.status, 201, JSON.stringify(lead.body));
    await browser.screenshot(page, "keys-test-mode-desktop");
    await browser.screenshotNarrow(page, "keys-test-mode-phone");
  });

  it("opens the account's test data with a banner on every page, and leaves it", async () => {
    await nav("Leads").click();
    await page.getByRole("heading", { name: "Leads", exact: true }).waitFor();
    assert.equal(await page.getByTestId("test-view-banner").count(), 0);
    assert.doesNotMatch(
      await text(page.locator("main")),
      /valid@sandbox\.example/,
      "live view: no test lead",
    );

    const toggle = page.getByTestId("test-view-switch");
    assert.equal(await toggle.getAttribute("aria-pressed"), "false");
    await toggle.click();
    await page.getByTestId("test-view-banner").waitFor();
    assert.equal(await page.getByTestId("test-view-switch").getAttribute("aria-pressed"), "true");
    await page.getByTestId("lead-row").filter({ hasText: "valid@sandbox.example" }).waitFor();
    await browser.screenshot(page, "test-view-leads-desktop");
    await browser.screenshotNarrow(page, "test-view-leads-phone");

    for (const label of ["Overview", "Credits", "API keys"]) {
      await nav(label).click();
      await page.getByRole("heading", { level: 1 }).first().waitFor();
      assert.match(await text(page.getByTestId("test-view-banner")), /You are looking at test data/, label);
    }
    // Keys belong to the whole account; a new key made here starts in test mode.
    await page.getByTestId("keys-whole-account").waitFor();
    assert.equal(await page.getByTestId("create-key-form").getByTestId("test-mode").isChecked(), true);
    // The view survives a reload (the choice is kept, like the account switcher's).
    await page.reload();
    await page.getByTestId("test-view-banner").waitFor();

    await page.getByTestId("test-view-switch").click();
    await page.getByTestId("test-view-switch").and(page.locator('[aria-pressed="false"]')).waitFor();
    assert.equal(await page.getByTestId("test-view-banner").count(), 0);
    await nav("Leads").click();
    await page.getByRole("heading", { name: "Leads", exact: true }).waitFor();
    assert.doesNotMatch(await text(page.locator("main")), /valid@sandbox\.example/);
    assert.deepEqual(browser.problems, []);
  });
});
