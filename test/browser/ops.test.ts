// Buying credits and imports in Chromium against the real service (a `leadcheck serve` subprocess on
// SQLite): "Buy credits" opens a Checkout Session at a local fake Stripe (the official library is
// pointed at it), its Pay button sends the signed webhook and returns to the Credits page, and the
// balance shows the credits once; pasted email and domain lists with bad lines are refused by line
// number and nothing is created; a domain batch's results show verdict, reason and facts, and
// download as CSV. A second service without Stripe keys explains how an operator grants credits.
// Each page is saved to test-artifacts/screenshots/ops-<name>.png.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type FakeStripe, startFakeStripe } from "../support/fake-stripe.js";
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
const USER = "ops_user";
const SECRET_KEY = "sk_test_browser_fake";
const WEBHOOK_SECRET = "whsec_browser_fake";

describe("buying credits and imports in Chromium", { skip }, () => {
  let service: Service;
  let plain: Service;
  let stripe: FakeStripe;
  let browser: Browser;
  let page: Page;

  before(async () => {
    let webhookUrl = "";
    stripe = await startFakeStripe({
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      webhookUrl: () => webhookUrl,
    });
    // One at a time: each service's start is CPU-bound, and their readiness wait is bounded.
    service = await startService({
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: stripe.url,
      PAYMENT_CURRENCY: "eur",
      PAYMENT_MIN_AMOUNT: "5",
    });
    plain = await startService();
    browser = await launchBrowser();
    webhookUrl = `${service.url}/v1/payments/stripe/webhook`;
    page = browser.page;
    await page.goto(await service.signinLink(USER));
    await page.getByTestId("signed-in-as").filter({ hasText: USER }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await Promise.all([service?.close(), plain?.close()]);
    await stripe?.close();
  });

  const nav = (target: Page, label: string) =>
    target.getByRole("navigation", { name: "Main" }).getByRole("link", { name: label });

  it("buys credits through Stripe Checkout and shows them in the balance once", async () => {
    await nav(page, "Credits").click();
    const buy = page.getByTestId("buy-credits");
    await buy.waitFor();
    assert.match(await text(buy), /1 EUR buys 1,000 credits/);
    const before = await text(page.getByTestId("balance-credits"));
    assert.equal(before, "2,000 credits");
    await page.getByTestId("buy-amount").fill("3");
    assert.match(await text(page.getByTestId("buy-gets")), /from 5 to 10,000 EUR/);
    assert.equal(await page.getByTestId("buy-submit").isDisabled(), true);
    await page.getByTestId("buy-amount").fill("7");
    assert.equal(await text(page.getByTestId("buy-gets")), "You get 7,000 credits.");
    await browser.screenshot(page, "ops-buy-credits");

    await page.getByTestId("buy-submit").click();
    await page.getByRole("heading", { name: "Fake Stripe Checkout" }).waitFor();
    assert.match(await page.content(), /Pay 7\.00 EUR/);
    await browser.screenshot(page, "ops-fake-stripe-checkout");
    await page.getByRole("button", { name: "Pay" }).click();

    await page.getByTestId("checkout-status").filter({ hasText: "Payment received" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/dashboard/credits");
    await page.getByTestId("balance-credits").filter({ hasText: "9,000 credits" }).waitFor();
    const ledger = page.getByTestId("ledger-table");
    await ledger.getByText("Purchase: 7.00 EUR").waitFor();
    assert.match(await text(ledger), /\+7,000/);
    assert.match(await text(ledger), /pi_test_fake1/, "the ledger entry carries the payment id");
    assert.match(await text(page.getByTestId("balance")), /Last purchase7,000 credits/);
    await browser.screenshot(page, "ops-credits-bought");

    // Stripe redelivers the same event: the balance does not move.
    const session = [...stripe.sessions.keys()][0]!;
    const event = stripe.event(session, { id: "evt_browser_replay" });
    const results: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${service.url}/v1/payments/stripe/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": event.signature },
        body: event.payload,
      });
      assert.equal(res.status, 200);
      results.push(((await res.json()) as { result: string }).result);
    }
    assert.deepEqual(results, ["already_granted", "duplicate_event"]);
    await page.reload();
    await page.getByTestId("balance-credits").filter({ hasText: "9,000 credits" }).waitFor();
  });

  it("explains how an operator grants credits when Stripe is not configured", async () => {
    const other = await browser.newPage();
    await other.goto(await plain.signinLink(USER));
    await other.getByTestId("signed-in-as").waitFor();
    await nav(other, "Credits").click();
    const buy = other.getByTestId("buy-credits");
    await buy.filter({ hasText: "not set up on this server" }).waitFor();
    assert.match(await text(buy), /leadcheck -- credits grant --user/);
    assert.match(await text(buy), /5 adds 5,000 credits/);
    await browser.screenshot(other, "ops-credits-no-stripe");
    await other.close();
  });

  it("refuses pasted lists with bad lines by line number, creating nothing", async () => {
    await nav(page, "Import").click();
    const form = page.getByTestId("paste-form");
    await page
      .getByTestId("paste-list")
      .fill("ann@acme.test, ben@acme.test\njo smith@acme.test\n\ncat@acme.test,nope");
    await form.getByRole("button", { name: "Start batch of 5" }).click();
    const errors = form.getByTestId("field-errors");
    await errors.waitFor();
    const listed = await errors.locator("li").allTextContents();
    assert.deepEqual(
      listed.map((line) => line.split(":")[0]),
      ["line 2", "line 4"],
    );
    assert.match(listed[0]!, /jo smith@acme\.test/, "a space inside a line does not split it");
    await browser.screenshot(page, "ops-import-bad-emails");

    await page.getByRole("radio", { name: /Domains/ }).check();
    await page.getByTestId("paste-list").fill("acme.test\nexample .test, parked.test");
    await form.getByRole("button", { name: "Start batch of 3" }).click();
    await form.getByTestId("field-errors").filter({ hasText: "line 2" }).waitFor();
    assert.match(await text(form.getByTestId("field-errors")), /example \.test/);
    await browser.screenshot(page, "ops-import-bad-domains");

    const leads = await fetch(`${service.url}/v1/leads?limit=1`, {
      headers: { authorization: `Bearer ${await testToken(USER)}` },
    });
    assert.equal(((await leads.json()) as { total: number }).total, 0, "nothing was imported");
  });

  it("runs a pasted domain list and shows verdict, reason and facts per domain, with a CSV download", async () => {
    const form = page.getByTestId("paste-form");
    await page.getByTestId("paste-list").fill("acme.test\nparked.test, nothing-here.test");
    await form.getByRole("button", { name: "Start batch of 3" }).click();
    await page.getByTestId("batch-status").filter({ hasText: "Finished" }).waitFor({ timeout: 60_000 });
    const rows = page.getByTestId("batch-result");
    await rows.first().waitFor();
    assert.equal(await rows.count(), 3);
    const headers = await page.getByTestId("batch-results").locator("thead th").allTextContents();
    assert.deepEqual(headers, ["#", "Input", "Verdict", "Reason", "Website"]);
    const acme = rows.filter({ hasText: "acme.test" }).first();
    // The word the batch's summary counts ("1 valid"), not the check's own status ("active").
    assert.match(await text(acme), /Valid/);
    assert.match(await text(acme.getByTestId("batch-result-reason")), /HTTP 200/);
    await browser.screenshot(page, "ops-domain-batch-results");

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByTestId("export-batch").click(),
    ]);
    const csv = await readFile((await download.path())!, "utf8");
    const lines = csv.trim().split(/\r?\n/);
    assert.equal(
      lines[0],
      "line,input,verdict,reason,rating,recommendation,httpStatus,finalUrl,sslValid,isParked,responseTimeMs,leadId",
    );
    assert.equal(lines.length, 4, csv);
    assert.match(csv, /acme\.test\/,valid,Answers HTTP 200,,,200,/);
    assert.match(csv, /nothing-here\.test\/?,invalid,No answer: /);
    assert.match(csv, /,(true|false),(true|false),/, "booleans are written as words");
  });

  it("threw no script errors on any page", () => {
    assert.deepEqual(browser.problems, []);
  });
});
