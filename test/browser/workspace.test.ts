// The overview and the leads workspace in Chromium against the real service (SQLite, checks on the
// loopback fake internet): the verify box and its verdict card, the charts with data and their
// text alternatives, the low-balance banner, search, selection with bulk tag, export, validate
// and archive, a lead's edit form, validate and archive, and each page at 375 px. Every
// screenshot also runs axe-core (browser-support.ts): serious or critical findings fail the test.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { TEST_ADMIN_TOKEN, testToken } from "../support/harness.js";
import { waitFor } from "../support/wait-for.js";
import {
  type Browser,
  browserSkipReason,
  launchBrowser,
  type Service,
  startService,
  text,
} from "./browser-support.js";

const skip = browserSkipReason();
const USER = "workspace_user";

describe("overview and leads workspace in Chromium", { skip }, () => {
  let service: Service;
  let browser: Browser;
  let page: Page;
  let auth: Record<string, string>;

  const api = async (method: string, path: string, body?: unknown, headers = auth) => {
    const res = await fetch(service.url + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const nav = (label: string) =>
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: label });
  const leadsOf = async (query: string) =>
    (await api("GET", `/v1/leads?${query}`)).body.leads as { id: string; email: string; tags: string[] }[];

  before(async () => {
    // A new account starts under the low-balance line (100 credits) so the banner shows.
    [service, browser] = await Promise.all([
      startService({ NEW_ACCOUNT_MILLI_CREDITS: "90" }),
      launchBrowser(),
    ]);
    page = browser.page;
    auth = { authorization: `Bearer ${await testToken(USER)}` };
    const validated = await api("POST", "/v1/leads/bulk", {
      leads: [
        { email: "alice@acme.test", website: "acme.test", company: "Acme Inc.", first_name: "Alice" },
        { email: "ghost@acme.test", company: "Acme Inc." },
        { email: "anyone@catchall.test", website: "catchall.test", company: "Catch All Corp" },
        { email: "someone@parked.test", website: "parked.test", company: "Parked LLC" },
      ],
    });
    assert.equal(validated.status, 200, JSON.stringify(validated.body));
    const unvalidated = await api("POST", "/v1/leads/bulk", {
      validate: false,
      leads: [
        { email: "bob@acme.test", first_name: "Bob", last_name: "Stone", company: "Globex" },
        { email: "carol@acme.test", first_name: "Carol", company: "Globex" },
        { email: "dave@initech.test", first_name: "Dave", company: "Initech" },
      ],
    });
    assert.equal(unvalidated.body.created, 3);
    await waitFor(
      async () => {
        const stats = (await api("GET", "/v1/leads/stats")).body as { byVerdict: { notValidated: number } };
        return stats.byVerdict.notValidated === 3 ? stats : undefined;
      },
      "the 4 validated leads settled",
      30_000,
      100,
    );
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it("lands on the overview: balance with a low-balance banner, charts with text alternatives, batches", async () => {
    await page.goto(await service.signinLink(USER));
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/dashboard/");
    const banner = page.getByTestId("low-balance");
    await banner.waitFor();
    assert.match(await text(banner), /82 credits left/, "90 less 4 lead validations at 2 credits");
    assert.match(await text(page.getByTestId("overview-balance")), /^82 credits$/);

    const verdicts = page.getByTestId("verdict-chart");
    await verdicts.locator("canvas").waitFor();
    const label = (await verdicts.locator("canvas").getAttribute("aria-label")) ?? "";
    assert.match(label, /Valid 1, Risky 1, Invalid 2, Unknown 0, Not validated 3/);
    await verdicts.getByText("Show as a table").click();
    await verdicts.getByRole("row", { name: /Not validated 3/ }).waitFor();

    const usage = page.getByTestId("usage-chart");
    await usage.locator("canvas").waitFor();
    assert.match(
      await text(page.getByTestId("usage-totals")),
      /4 validations, 8 credits spent over 1 charged request/,
    );
    await usage.getByText("Show as a table").click();
    const today = new Date().toISOString().slice(5, 10);
    await usage.getByRole("row", { name: new RegExp(`${today} 4 8`) }).waitFor();

    const batches = page.getByTestId("recent-batches");
    await batches.getByText("Lead validation").waitFor();
    assert.match(await text(batches), /4 items · completed/);
    await browser.screenshot(page, "overview");
    await browser.screenshotNarrow(page, "overview-375");
  });

  it("verifies an email and a website from the overview and shows each verdict as a card", async () => {
    await page.getByTestId("verify-input").fill("bob@acme.test");
    await page.getByTestId("verify-submit").click();
    const card = page.getByTestId("verdict-card");
    await card.waitFor({ timeout: 30_000 });
    assert.equal(await text(card.getByTestId("verdict")), "Valid");
    assert.equal(await text(card.getByTestId("reason")), "Mailbox accepts mail");
    assert.match(await text(card.getByTestId("verdict-score")), /Score \d+\/100/);
    assert.ok((await card.getByTestId("verdict-factors").locator("tbody tr").count()) > 0, "score factors");
    assert.match(await text(card), /1 credit used; 81 credits left/);
    await browser.screenshot(page, "overview-verify-email");

    await page.getByTestId("verify-input").fill("ghost@acme.test");
    await page.getByTestId("verify-submit").click();
    await card.getByText("ghost@acme.test").waitFor({ timeout: 30_000 });
    assert.equal(await text(card.getByTestId("verdict")), "Invalid");
    assert.equal(await text(card.getByTestId("reason")), "Mailbox does not exist");

    await page.getByTestId("verify-input").fill("parked.test");
    await page.getByTestId("verify-submit").click();
    await card.getByText("https://parked.test/").first().waitFor({ timeout: 30_000 });
    assert.equal(await text(card.getByTestId("verdict")), "Risky");
    assert.match(await text(card), /Parked: yes/);
    await browser.screenshotNarrow(page, "overview-verify-website-375");

    // An operator's grant lifts the balance over the line: the banner goes.
    const grant = await api(
      "POST",
      `/v1/admin/accounts/${USER}/credits`,
      { credits: 5, reason: "purchase" },
      {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      },
    );
    assert.equal(grant.status, 200, JSON.stringify(grant.body));
    await page.reload();
    await page.getByTestId("overview-balance").filter({ hasText: "5,079 credits" }).waitFor();
    assert.equal(await page.getByTestId("low-balance").count(), 0);
  });

  it("searches leads by name and company on the server and shows Not rated, verdicts and reasons", async () => {
    await nav("Leads").click();
    const rows = page.getByTestId("lead-row");
    await rows.first().waitFor();
    assert.equal(await rows.count(), 7);
    const bob = rows.filter({ hasText: "bob@acme.test" });
    await bob.getByTestId("not-rated").waitFor();
    assert.equal(await text(bob.getByTestId("verdict")), "Not validated");
    const ghost = rows.filter({ hasText: "ghost@acme.test" });
    assert.equal(await text(ghost.getByTestId("verdict")), "Invalid");
    const alice = rows.filter({ hasText: "alice@acme.test" });
    assert.equal(await text(alice.getByTestId("verdict")), "Valid");
    assert.match(
      (await alice.locator(".rating").getAttribute("data-band")) ?? "",
      /good|excellent|fair|poor/,
    );
    await browser.screenshot(page, "leads-workspace");

    await page.getByTestId("lead-search").fill("globex");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/search=globex/);
    await page.getByTestId("lead-count").filter({ hasText: "2 leads match" }).waitFor();
    assert.equal(await rows.count(), 2);
    await page.getByTestId("lead-search").fill("bob sto");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByTestId("lead-count").filter({ hasText: "1 lead match" }).waitFor();
    assert.match(await text(rows.first()), /bob@acme\.test/);
    await browser.screenshot(page, "leads-search");
  });

  it("tags, exports, validates and archives a selection", async () => {
    await page.getByTestId("lead-search").fill("globex");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByTestId("lead-count").filter({ hasText: "2 leads match" }).waitFor();
    await page.getByTestId("select-all").check();
    const bar = page.getByTestId("bulk-bar");
    assert.equal(await text(bar.getByTestId("selected-count")), "2 leads selected");

    await bar.getByTestId("bulk-tag-input").fill("vip");
    await bar.getByTestId("bulk-tag").click();
    await bar.getByTestId("bulk-status").filter({ hasText: 'Tagged 2 leads "vip".' }).waitFor();
    assert.deepEqual((await leadsOf("tag=vip")).map((l) => l.email).sort(), [
      "bob@acme.test",
      "carol@acme.test",
    ]);
    await page.getByTestId("lead-row").first().getByText("vip").waitFor();
    await browser.screenshot(page, "leads-bulk-tagged");
    await browser.screenshotNarrow(page, "leads-375");

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      bar.getByTestId("bulk-export").click(),
    ]);
    const csv = await readFile((await download.path())!, "utf8");
    const lines = csv.trim().split(/\r?\n/);
    assert.equal(lines.length, 3, csv);
    assert.match(csv, /bob@acme\.test/);
    assert.match(csv, /carol@acme\.test/);

    await bar.getByTestId("bulk-validate").click();
    const confirmValidate = page.getByRole("dialog", { name: "Validate 2 leads?" });
    await confirmValidate.waitFor();
    assert.match(await text(confirmValidate), /4 credits for this selection/);
    await browser.screenshot(page, "leads-bulk-validate-confirm");
    await confirmValidate.getByRole("button", { name: "Validate" }).click();
    await bar.getByTestId("bulk-status").filter({ hasText: "Validation of 2 leads started" }).waitFor();
    await page.getByTestId("validation-progress").getByTestId("batch-link").waitFor();
    await waitFor(
      async () => {
        const leads = (await leadsOf("tag=vip")) as unknown as { validatedAt: string | null }[];
        return leads.every((l) => l.validatedAt) ? leads : undefined;
      },
      "the selection validated",
      30_000,
      100,
    );

    await page.getByTestId("bulk-archive").click();
    const confirmArchive = page.getByRole("dialog", { name: "Archive 2 leads?" });
    await confirmArchive.getByRole("button", { name: "Archive" }).click();
    await page.getByTestId("leads-notice").filter({ hasText: "Archived 2 leads." }).waitFor();
    await page.getByTestId("empty").filter({ hasText: "No leads match" }).waitFor();
    assert.equal((await leadsOf("search=globex")).length, 0);
  });

  it("edits a lead within the field limits, validates it and archives it after a confirmation", async () => {
    await page.getByTestId("lead-search").fill("initech");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("link", { name: "dave@initech.test" }).click();
    await page.getByTestId("lead-email").filter({ hasText: "dave@initech.test" }).waitFor();
    await page.getByTestId("lead-rating").getByTestId("not-rated").waitFor();
    assert.match(await text(page.getByTestId("no-factors")), /Not rated yet/);
    await browser.screenshot(page, "lead-not-rated");

    await page.getByTestId("lead-edit").click();
    const form = page.getByTestId("lead-edit-form");
    await form.waitFor();
    const company = form.getByLabel("Company");
    assert.equal(await company.getAttribute("maxlength"), "200");
    await company.fill("Initrode");
    await form.getByText("8/200 characters").waitFor();
    await form.getByLabel("Tags").fill("q4, partner");
    await browser.screenshot(page, "lead-edit");
    await browser.screenshotNarrow(page, "lead-edit-375");
    await form.getByTestId("lead-save").click();
    await page.getByTestId("lead-fields").getByText("Initrode").waitFor();
    await page.getByTestId("lead-fields").getByText("partner").waitFor();

    await page.getByTestId("lead-validate").click();
    await page
      .getByRole("dialog", { name: "Validate this lead?" })
      .getByRole("button", { name: "Validate" })
      .click();
    await page
      .getByTestId("lead-action-status")
      .filter({ hasText: "Validated." })
      .waitFor({ timeout: 30_000 });
    await page.getByTestId("lead-rating").locator(".rating").waitFor();
    await browser.screenshot(page, "lead-validated");
    await browser.screenshotNarrow(page, "lead-375");

    await page.getByTestId("lead-archive").click();
    const confirm = page.getByRole("dialog", { name: "Archive dave@initech.test?" });
    await confirm.getByRole("button", { name: "Cancel" }).click();
    assert.equal((await api("GET", "/v1/leads?search=initech")).body.total, 1, "cancel keeps the lead");
    await page.getByTestId("lead-archive").click();
    await confirm.getByRole("button", { name: "Archive" }).click();
    await page.waitForURL(/\/dashboard\/leads$/);
    assert.equal((await api("GET", "/v1/leads?search=initech")).body.total, 0);
  });

  it("keeps a webhook's actions on one line beside a long URL, at 375 px too", async () => {
    const url = `https://acme.test/${"very-long-path-segment/".repeat(6)}receiver`;
    const created = await api("POST", "/v1/webhooks", { url, events: ["lead.validated"], name: "CRM" });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    for (const narrow of [false, true]) {
      if (narrow) await page.setViewportSize({ width: 375, height: 812 });
      await nav("Webhooks").click();
      const row = page.getByTestId("webhook-row").filter({ hasText: "CRM" });
      await row.waitFor();
      const edit = await row.getByRole("button", { name: "Edit CRM" }).boundingBox();
      const del = await row.getByRole("button", { name: "Delete CRM" }).boundingBox();
      assert.ok(
        edit && del && Math.abs(edit.y - del.y) < 2,
        `Edit and Delete on one line (${edit?.y}, ${del?.y})`,
      );
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await browser.screenshot(page, "webhooks-long-url");
    await browser.screenshotNarrow(page, "webhooks-375");
  });

  it("passes axe on every other page, wide and at 375 px", async () => {
    for (const [label, name] of [
      ["API keys", "keys"],
      ["Credits", "credits"],
      ["Import", "import"],
    ] as const) {
      await nav(label).click();
      await page.getByRole("heading", { level: 1 }).first().waitFor();
      await page.waitForLoadState("networkidle");
      await browser.screenshot(page, `a11y-${name}`);
      await browser.screenshotNarrow(page, `a11y-${name}-375`);
    }
  });

  it("threw no script errors on any page", () => {
    assert.deepEqual(browser.problems, []);
  });
});
