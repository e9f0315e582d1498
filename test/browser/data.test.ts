// The Audit log, Settings and Widget pages and "Erase" on a lead, in Chromium against the real
// service: the log filtered by action and date, exported as CSV, its chain verified (and found
// broken after a row is edited in the database); retention saved (a bad value refused in the
// server's words); an account export requested and downloaded; a person erased by email after a
// typed confirmation; a lead erased from its page; a test-mode widget key made from the page, its
// snippet, an address checked as the widget would, and the widget live in the sample form.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { openDatabase } from "../../src/storage/db.js";
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
const USER = "data_owner";

describe("Audit, Settings and Widget pages in Chromium", { skip }, () => {
  let service: Service;
  let browser: Browser;
  let page: Page;
  let auth: Record<string, string>;

  const post = async (path: string, body: object) => {
    const res = await fetch(service.url + path, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { id: string } };
  };
  const nav = (label: string) =>
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: label });

  before(async () => {
    [service, browser] = await Promise.all([startService({ JOB_POLL_INTERVAL_MS: "50" }), launchBrowser()]);
    page = browser.page;
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: service.url });
    auth = { authorization: `Bearer ${await testToken(USER)}` };
    await page.goto(await service.signinLink(USER));
    await page.getByTestId("my-role").filter({ hasText: "owner" }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it("saves retention (a bad value refused in the server's words), exports the account, erases a person", async () => {
    await nav("Settings").click();
    const form = page.getByTestId("retention-form");
    await form.waitFor();
    await form.getByTestId("retention-archived_leads_days").fill("lots");
    await form.getByTestId("retention-save").click();
    await page.getByTestId("error").filter({ hasText: "Request validation failed" }).waitFor();
    assert.match(await text(page.getByTestId("field-errors")), /archived_leads_days/);
    await form.getByTestId("retention-archived_leads_days").fill("30");
    await form.getByTestId("retention-suppress").check();
    await form.getByTestId("retention-save").click();
    await page.getByTestId("retention-status").filter({ hasText: "Saved" }).waitFor();
    const saved = (await (await fetch(`${service.url}/v1/settings/retention`, { headers: auth })).json()) as {
      archived_leads_days: number;
      suppress_erased_emails: boolean;
    };
    assert.equal(saved.archived_leads_days, 30);
    assert.equal(saved.suppress_erased_emails, true);

    await page.getByTestId("export-request").click();
    const link = page.getByTestId("export-download");
    await link.waitFor({ timeout: 60_000 });
    const archive = await fetch(service.url + (await link.getAttribute("href"))!);
    assert.equal(archive.status, 200);
    const lines = gunzipSync(Buffer.from(await archive.arrayBuffer()))
      .toString()
      .trim()
      .split("\n");
    assert.ok(lines.some((line) => JSON.parse(line).resource === "audit_entries"));

    const lead = await post("/v1/leads", { email: "forget.me@lead.example", validate: false });
    assert.equal(lead.status, 201);
    const erase = page.getByTestId("erase-form");
    await erase.getByTestId("erase-email").fill("not an address");
    await erase.getByTestId("erase-confirm").fill("ERASE");
    await erase.getByTestId("erase-submit").click();
    await page.getByTestId("error").filter({ hasText: "Request validation failed" }).waitFor();
    await erase.getByTestId("erase-email").fill("Forget.Me@lead.example");
    await erase.getByTestId("erase-confirm").fill("erase");
    assert.equal(
      await erase.getByTestId("erase-submit").isDisabled(),
      true,
      "the word must be typed exactly",
    );
    await erase.getByTestId("erase-confirm").fill("ERASE");
    await erase.getByTestId("erase-submit").click();
    await page
      .getByTestId("erase-result")
      .filter({ hasText: "Erased Forget.Me@lead.example: 1 lead" })
      .waitFor();
    assert.equal((await fetch(`${service.url}/v1/leads/${lead.body.id}`, { headers: auth })).status, 404);
    await browser.screenshot(page, "settings");
    await browser.screenshotNarrow(page, "settings-narrow");
  });

  it("erases a lead from its page after a confirmation that says what goes", async () => {
    const lead = await post("/v1/leads", { email: "erase.here@lead.example", validate: false });
    await page.goto(`${service.url}/dashboard/leads/${lead.body.id}`);
    await page.getByTestId("lead-erase").click();
    const dialog = page.getByRole("dialog");
    assert.match(await text(dialog), /webhook deliveries, job payloads.*cannot be undone/s);
    await dialog.getByTestId("confirm").click();
    await page
      .getByTestId("leads-notice")
      .filter({ hasText: `Lead ${lead.body.id} was erased` })
      .waitFor();
    assert.equal((await fetch(`${service.url}/v1/leads/${lead.body.id}`, { headers: auth })).status, 404);
  });

  it("lists the audit log with filters, exports it as CSV, and verifies the chain until a row is edited", async () => {
    await nav("Audit log").click();
    const table = page.getByTestId("audit-table");
    await table.getByText("lead.erased").first().waitFor();
    await table.getByText("retention.changed").first().waitFor();

    await page.getByTestId("filter-action").fill("lead.erased");
    const today = new Date().toISOString().slice(0, 10);
    await page.getByTestId("filter-from").fill(today);
    await page.getByTestId("filter-to").fill(today);
    await page.getByTestId("apply-filters").click();
    await page.waitForFunction(`(() => {
      const rows = [...document.querySelectorAll('[data-testid="audit-row"]')];
      return rows.length === 2 && rows.every((row) => row.textContent.includes("lead.erased"));
    })()`);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByTestId("export-audit").click(),
    ]);
    const csv = (await readFile((await download.path())!, "utf8")).trim().split("\n");
    assert.match(csv[0]!, /^id,seq,created_at,actor_kind/);
    assert.equal(csv.length, 3, "the header and the two erasures the filter shows");

    await page.getByTestId("verify-chain").click();
    await page.getByTestId("chain-result").filter({ hasText: "The chain holds" }).waitFor();
    await browser.screenshot(page, "audit");
    await browser.screenshotNarrow(page, "audit-narrow");

    const db = openDatabase(service.env.DATABASE_URL!);
    try {
      await db.db
        .updateTable("audit_entries")
        .set({ details: '{"edited":true}' })
        .where("seq", "=", 2)
        .execute();
    } finally {
      await db.close();
    }
    await page.getByTestId("verify-chain").click();
    await page.getByTestId("chain-result").filter({ hasText: "The chain is broken at entry #2" }).waitFor();
    assert.deepEqual(browser.problems, []);
  });

  it("makes a test-mode widget key, shows its snippet and limits, and runs the widget on the page", async () => {
    await nav("Widget").click();
    const form = page.getByTestId("widget-key-form");
    await form.locator("summary").click();
    await form.getByTestId("widget-key-name").fill("Signup form");
    await form.getByTestId("widget-key-origins-input").fill("https://www.acme.test/signup");
    await form.getByTestId("widget-key-create").click();
    await page.getByTestId("error").filter({ hasText: "allowedOrigins" }).waitFor();
    await form.getByTestId("widget-key-origins-input").fill(`https://www.acme.test\n${service.url}`);
    await form.getByTestId("widget-key-test").check();
    await form.getByTestId("widget-limit-dailyCap").fill("500");
    await form.getByTestId("widget-key-create").click();
    const row = page.getByTestId("widget-key-row").first();
    await row.getByText("Signup form").waitFor();
    assert.match(
      await text(row.getByTestId("widget-key-limits")),
      /500 charged addresses a day.*30 checks a minute/,
    );
    const snippet = await page.getByTestId("widget-snippet").inputValue();
    assert.match(
      snippet,
      new RegExp(`^<script src="${service.url}/widget.js" data-key="pk_[A-Za-z0-9]{40}" async></script>$`),
    );

    await page.getByTestId("widget-try-email").fill("disposable@mailinator.com");
    await page.getByTestId("widget-try-submit").click();
    await page.getByTestId("widget-try-status").filter({ hasText: "risky" }).waitFor();

    const frame = page.frameLocator('[data-testid="widget-frame"]');
    const input = frame.locator('input[type="email"]');
    await input.fill("jane@gmial.com");
    await input.blur();
    await frame.getByText("Did you mean").waitFor();
    await browser.screenshot(page, "widget");
    await browser.screenshotNarrow(page, "widget-narrow");
    assert.deepEqual(browser.problems, []);
  });
});
