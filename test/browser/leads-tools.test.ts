// The leads workspace's round-3 tools in Chromium against the real service (SQLite, checks on the
// loopback fake internet, a fake RDAP registry for domain ages): sortable columns and the website
// column, the domain age, block list and did-you-mean filters, the one-click did-you-mean fix, a
// bulk validation's progress with its batch link while the selection stays listed, one label per
// reason, and the Import page's limits, template, mapping preview and cost estimate.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { REASON, VERDICT } from "../../dashboard/src/labels.js";
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
const USER = "tools_user";
const DAY = 86_400_000;

type LeadBody = {
  id: string;
  email: string;
  validatedAt: string | null;
  validationStatus: string;
  leadDeliverabilityRating: number;
  didYouMean: string | null;
};

describe("leads tools and import preview in Chromium", { skip }, () => {
  let service: Service;
  let browser: Browser;
  let page: Page;
  let auth: Record<string, string>;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(service.url + path, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const leadsOf = async (query: string) => (await api("GET", `/v1/leads?${query}`)).body.leads as LeadBody[];
  const grant = (user: string, credits: number) =>
    fetch(`${service.url}/v1/admin/accounts/${user}/credits`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ credits, reason: "test grant" }),
    });
  const balance = async () => (await api("GET", "/v1/credits")).body.displayCredits as number;
  const nav = (label: string) =>
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: label });
  const rows = () => page.getByTestId("lead-row");
  const rowEmails = async () =>
    (await rows().locator("a[href*='/leads/lead_']").allTextContents()).map((t) => t.trim());

  before(async () => {
    [service, browser] = await Promise.all([
      // New accounts hold 1 credit (the singular's case); the main user is granted 2,000 more.
      startService(
        { NEW_ACCOUNT_MILLI_CREDITS: "1" },
        {
          zone: {
            "young.test": { A: ["127.0.0.1"], MX: [{ exchange: "mx.catchall.test", priority: 10 }] },
            "young.test.dbl.spamhaus.org": { A: ["127.0.1.2"] },
            "gmail.com": { MX: [{ exchange: "mx.catchall.test", priority: 10 }] },
          },
          registry: {
            "acme.test": { kind: "registered", registeredAt: "2009-03-15T04:00:00Z" },
            "young.test": { kind: "registered", registeredAt: new Date(Date.now() - 12 * DAY).toISOString() },
          },
        },
      ),
      launchBrowser(),
    ]);
    page = browser.page;
    auth = { authorization: `Bearer ${await testToken(USER)}` };
    assert.equal((await grant(USER, 2)).status, 200);
    const validated = await api("POST", "/v1/leads/bulk", {
      leads: [
        { email: "alice@acme.test", website: "acme.test", company: "Acme Inc." },
        { email: "ghost@acme.test", company: "Acme Inc." },
        { email: "anyone@catchall.test", website: "catchall.test" },
        { email: "sam@young.test" },
        { email: "pat@gmial.com" },
      ],
    });
    assert.equal(validated.status, 200, JSON.stringify(validated.body));
    const fresh = await api("POST", "/v1/leads/bulk", {
      validate: false,
      leads: [{ email: "bob@acme.test", company: "Globex" }, { email: "carol@acme.test" }],
    });
    assert.equal(fresh.body.created, 2);
    await waitFor(
      async () => ((await leadsOf("validationStatus=processing&limit=1")).length === 0 ? true : undefined),
      "the 5 validated leads settled",
      30_000,
      100,
    );
    await page.goto(await service.signinLink(USER));
    await page.getByRole("heading", { name: "Overview" }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it("sorts the page's leads by a column, both ways, and shows each lead's website", async () => {
    await nav("Leads").click();
    await rows().first().waitFor();
    assert.equal(await rows().count(), 7);
    const headers = await page.getByTestId("leads-table").locator("thead th").allTextContents();
    assert.ok(
      headers.some((h) => h.startsWith("Website")),
      headers.join("|"),
    );
    assert.match(await text(rows().filter({ hasText: "alice@acme.test" })), /acme\.test/);

    const ratings = async () => {
      const byEmail = new Map((await leadsOf("limit=100")).map((l) => [l.email, l]));
      return (await rowEmails()).map((e) => {
        const l = byEmail.get(e)!;
        return l.validatedAt ? l.leadDeliverabilityRating : null;
      });
    };
    await page.getByTestId("sort-rating").click();
    await page.waitForURL(/sort=rating%3Aasc/);
    const up = await ratings();
    const rated = up.filter((r): r is number => r !== null);
    assert.deepEqual(
      rated,
      [...rated].sort((a, b) => a - b),
      `ascending: ${up}`,
    );
    assert.deepEqual(up.slice(rated.length), [null, null], "the not rated last");
    assert.equal(
      await page.locator("th[aria-sort='ascending']").textContent(),
      await page.getByTestId("sort-rating").textContent(),
    );
    await page.getByTestId("sort-rating").click();
    await page.waitForURL(/sort=rating%3Adesc/);
    const down = (await ratings()).filter((r): r is number => r !== null);
    assert.deepEqual(down, [...rated].reverse(), "descending");
    assert.match(await text(page.getByTestId("lead-count")), /sorted within this page/);
    await browser.screenshot(page, "leads-sorted-by-rating");

    await page.getByTestId("sort-email").click();
    const emails = await rowEmails();
    assert.deepEqual(emails, [...emails].sort());
  });

  it("filters by block listing, domain age and did-you-mean, as the API does", async () => {
    const filters = page.getByTestId("lead-filters");
    const apply = async (label: string, value: string, expected: string[], param: RegExp) => {
      if (await filters.getByRole("button", { name: "Clear" }).isVisible())
        await filters.getByRole("button", { name: "Clear" }).click();
      await page.waitForURL((url) => !/domain|didyoumean/i.test(url.search));
      const field = filters.getByLabel(label);
      if ((await field.evaluate((el) => el.tagName)) === "SELECT") await field.selectOption(value);
      else await field.fill(value);
      await filters.getByRole("button", { name: "Apply filters" }).click();
      await page.waitForURL(param);
      await page
        .getByTestId("lead-count")
        .filter({ hasText: `${expected.length} lead` })
        .waitFor();
      assert.deepEqual((await rowEmails()).sort(), expected);
    };
    await apply("On a block list", "true", ["sam@young.test"], /domainListed=true/);
    assert.deepEqual(
      (await leadsOf("domainListed=true")).map((l) => l.email),
      ["sam@young.test"],
    );
    await apply("Domain age to (days)", "90", ["sam@young.test"], /maxDomainAgeDays=90/);
    await apply(
      "Domain age from (days)",
      "3650",
      ["alice@acme.test", "ghost@acme.test"],
      /minDomainAgeDays=3650/,
    );
    await apply("Did you mean", "true", ["pat@gmial.com"], /hasDidYouMean=true/);
    await browser.screenshot(page, "leads-filter-did-you-mean");
    // The export follows the active filter: its request carries it and its file holds only that lead.
    const exported = page.waitForResponse((res) => res.url().includes("/v1/leads/export"));
    await page.getByTestId("export-leads").filter({ hasText: "Export these leads as CSV" }).click();
    const response = await exported;
    assert.match(response.url(), /hasDidYouMean=true/);
    const csv = await response.text();
    assert.match(csv, /pat@gmial\.com/);
    assert.doesNotMatch(csv, /alice@acme\.test/);
  });

  it("fixes a mistyped domain in one click after a confirmation, then re-validates it", async () => {
    // The lead's own page offers the same fix.
    await page.getByRole("link", { name: "pat@gmial.com" }).click();
    const offer = page.getByTestId("did-you-mean").filter({ hasText: "Did you mean pat@gmail.com?" });
    await offer.getByTestId("apply-did-you-mean").waitFor();
    const facts = await text(page.getByTestId("domain-facts"));
    assert.match(facts, /Not checkable: its registry offers no RDAP service/, "the registration in words");
    assert.doesNotMatch(facts, /no_rdap_server|unsupported/);
    await browser.screenshot(page, "lead-did-you-mean");
    await page.goBack();
    const row = rows().filter({ hasText: "pat@gmial.com" });
    await row.getByTestId("did-you-mean").filter({ hasText: "Did you mean pat@gmail.com?" }).waitFor();
    await row.getByTestId("apply-did-you-mean").click();
    const dialog = page.getByRole("dialog", { name: "Change the email?" });
    await dialog.waitFor();
    assert.match(await text(dialog), /pat@gmial\.com becomes pat@gmail\.com/);
    await browser.screenshot(page, "leads-did-you-mean-confirm");
    await dialog.getByRole("button", { name: "Change email" }).click();
    const fixed = page.getByTestId("did-you-mean").filter({ hasText: "Email changed to pat@gmail.com" });
    await fixed.waitFor();
    const lead = (await leadsOf("search=pat%40gmail"))[0]!;
    assert.equal(lead.email, "pat@gmail.com", "the PUT changed the email");
    const before = lead.validatedAt;
    await fixed.getByTestId("validate-fixed").click();
    // Validated, the lead no longer has a suggestion and leaves the filter: the outcome stays in words.
    await page
      .getByTestId("leads-notice")
      .filter({ hasText: "Email changed to pat@gmail.com and validated." })
      .waitFor({ timeout: 30_000 });
    const after = (await api("GET", `/v1/leads/${lead.id}`)).body as unknown as LeadBody;
    assert.notEqual(after.validatedAt, before, "validated again");
    assert.equal(after.didYouMean, null, "gmail.com needs no correction");
  });

  it("follows a bulk validation with progress and a batch link, keeping the selection listed", async () => {
    await page.goto(`${service.url}/dashboard/leads?validationStatus=new`);
    await page.getByTestId("lead-count").filter({ hasText: "2 leads match" }).waitFor();
    await page.getByTestId("select-all").check();
    await page.getByTestId("bulk-validate").click();
    const confirm = page.getByRole("dialog", { name: "Validate 2 leads?" });
    assert.match(
      await text(confirm),
      /2 credits per lead at the standard prices, 4 credits for this selection/,
    );
    await confirm.getByRole("button", { name: "Validate" }).click();
    const progress = page.getByTestId("validation-progress");
    await progress.waitFor();
    const link = progress.getByTestId("batch-link");
    assert.match((await link.getAttribute("href")) ?? "", /\/dashboard\/batches\/batch_/);
    await page
      .getByTestId("validation-progress-text")
      .filter({ hasText: /Validated 2 leads: \d+ valid, \d+ invalid, \d+ risky or unknown, 0 failed/ })
      .waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId("progress").getAttribute("value"), "100");
    // Both left the "New" filter; they stay listed, marked, with their new verdicts.
    assert.equal((await leadsOf("validationStatus=new")).length, 0);
    await page.getByTestId("kept-notice").filter({ hasText: "2 selected leads no longer match" }).waitFor();
    assert.match(
      await text(page.getByTestId("lead-count")),
      /^0 leads match; 2 selected leads kept in view$/,
    );
    assert.equal(await rows().count(), 2);
    assert.equal(await page.getByTestId("kept-note").count(), 2);
    assert.equal(await page.getByTestId("empty").count(), 0, "no 'No leads match' under the bar");
    // The kept rows show their new verdicts (which one depends on the fake mail server's answer).
    await waitFor(
      async () => {
        const words = await rows().getByTestId("verdict").allTextContents();
        return words.length === 2 &&
          words.every((w) => Object.values(VERDICT).includes(w) && w !== VERDICT.processing)
          ? words
          : undefined;
      },
      "the kept rows show verdicts",
      10_000,
    );
    await browser.screenshot(page, "leads-bulk-validation-progress");

    await page.getByTestId("refresh-list").click();
    await page.getByTestId("empty").filter({ hasText: "No leads match" }).waitFor();
    await link.click();
    await page.waitForURL(/\/dashboard\/batches\/batch_/);
    await page.getByTestId("batch-status").filter({ hasText: "Finished: 2 of 2 done" }).waitFor();
    await page.getByTestId("batch-result").nth(1).waitFor();
    assert.equal(await page.getByTestId("batch-result").count(), 2);
    await browser.screenshot(page, "batch-page");
  });

  it("gives each reason one label, and batch rows the verdict their summary counts", async () => {
    await page.goto(`${service.url}/dashboard/leads?search=ghost`);
    await page.getByRole("link", { name: "ghost@acme.test" }).click();
    await page.getByTestId("lead-email").filter({ hasText: "ghost@acme.test" }).waitFor();
    const ghost = (await leadsOf("search=ghost"))[0] as LeadBody & { emailReason: keyof typeof REASON };
    const badge = page.getByTestId("lead-rating").getByTestId("reason");
    assert.equal(await text(badge), REASON[ghost.emailReason], "the reason in words");
    assert.equal(await badge.getAttribute("title"), ghost.emailReason, "its code only as the tooltip");
    const factors = page.getByTestId("rating-factors");
    assert.equal(await factors.locator("code").count(), 0, "no code printed beside its label");
    assert.doesNotMatch(await text(factors), /_/);

    await nav("Import").click();
    await page.getByRole("radio", { name: /Domains/ }).check();
    await page.getByTestId("paste-list").fill("acme.test\nnothing-here.test");
    await page.getByRole("button", { name: "Start batch of 2" }).click();
    const status = page.getByTestId("batch-status").filter({ hasText: "Finished" });
    await status.waitFor({ timeout: 30_000 });
    const [, valid, invalid] = /(\d+) valid · (\d+) invalid/.exec(await text(status))!;
    const verdicts = await page.getByTestId("batch-result").locator(".verdict").allTextContents();
    assert.equal(verdicts.filter((v) => v === "Valid").length, Number(valid), "rows agree with the summary");
    assert.equal(
      verdicts.filter((v) => v === "Invalid").length,
      Number(invalid),
      "rows agree with the summary",
    );
    assert.equal(verdicts[1], "Invalid", "a domain that does not resolve is invalid, not 'Error'");
    const reasons = await page.getByTestId("batch-result-reason").allTextContents();
    if (verdicts[0] === "Valid") assert.match(reasons[0]!, /^Answers HTTP 200$/);
    assert.match(reasons[1]!, /^No answer: /);

    await nav("Overview").click();
    await page.getByTestId("verify-input").fill("someone@nowhere-at-all.test");
    await page.getByTestId("verify-submit").click();
    const emailCard = page.getByTestId("verdict-card").filter({ hasText: "someone@nowhere-at-all.test" });
    const reason = emailCard.getByTestId("reason");
    await reason.waitFor({ timeout: 30_000 });
    // Normally "Domain does not exist" (dns_nxdomain); a DNS timeout under load has its own words.
    const code = (await reason.getAttribute("data-reason")) as keyof typeof REASON;
    assert.equal(await text(reason), REASON[code]);
    const scoreFactors = await emailCard
      .getByTestId("verdict-factors")
      .locator("tbody td:first-child")
      .allTextContents();
    assert.equal(scoreFactors[0], REASON[code], "the reason's factor in the reason's words");
    assert.doesNotMatch(scoreFactors.join("|"), /nxdomain|_/i);
    await browser.screenshot(page, "overview-one-label-per-reason");

    await page.getByTestId("verify-input").fill("acme.test");
    await page.getByTestId("verify-submit").click();
    const card = page.getByTestId("verdict-card").filter({ hasText: "HTTP status" });
    await card.waitFor({ timeout: 30_000 });
    const check = await api("POST", "/v1/check-website", { website: "acme.test" });
    const redirects = (check.body.redirectChain as string[]).length - 1;
    if (redirects === 0) assert.equal(await card.getByTestId("redirects").count(), 0, await text(card));
    else assert.equal(await text(card.getByTestId("redirects")), `Redirects: ${redirects}`);
    assert.match(await text(card), /1 credit used;/);
  });

  it("shows the file's limits, a template, a mapping preview and the cost before a validated import", async () => {
    await nav("Import").click();
    const form = page.getByTestId("csv-form");
    assert.match(await text(form.getByTestId("import-limits")), /Up to 10,000 rows and 5 MB per file/);
    const [template] = await Promise.all([
      page.waitForEvent("download"),
      form.getByTestId("download-template").click(),
    ]);
    const templateText = await readFile((await template.path())!, "utf8");
    assert.match(templateText, /^email,website,first_name,last_name,company,/);

    const semicolons = "E-Mail;Company;Favourite colour\ndan@acme.test;Acme;blue\neve@acme.test;Acme;green\n";
    await form
      .getByTestId("csv-file")
      .setInputFiles({ name: "semi.csv", mimeType: "text/csv", buffer: Buffer.from(semicolons) });
    await form.getByTestId("csv-preview").waitFor();
    assert.match(await text(form.getByTestId("csv-summary")), /^2 rows · 1 KB · separated by semicolons$/);
    assert.deepEqual(
      await form
        .getByTestId("csv-mapping")
        .locator("li")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-field"))),
      ["email", "company", "custom"],
    );
    assert.equal(await form.getByTestId("csv-preview-row").count(), 2);
    const have = await balance();
    assert.match(
      await text(form.getByTestId("cost-estimate")),
      new RegExp(
        `Validating 2 leads costs 4 credits .*Your balance of ${have.toLocaleString("en-US")} credits covers it`,
      ),
    );
    await browser.screenshot(page, "import-preview-cost");

    // 999 rows at 2 credits each cost more than the balance: said before anything is sent.
    const many = ["email", ...Array.from({ length: 999 }, (_, i) => `p${i}@acme.test`)].join("\n");
    await form
      .getByTestId("csv-file")
      .setInputFiles({ name: "many.csv", mimeType: "text/csv", buffer: Buffer.from(many) });
    await form.getByTestId("csv-summary").filter({ hasText: "999 rows" }).waitFor();
    const estimate = form.getByTestId("cost-estimate");
    assert.match(await text(estimate), /costs 1,998 credits/);
    assert.match(await text(estimate), new RegExp(`${(1998 - have).toLocaleString("en-US")} credits short`));
    await browser.screenshotNarrow(page, "import-preview-short-375");
    await form.getByRole("checkbox", { name: /Validate and rate/ }).uncheck();
    assert.equal(await estimate.count(), 0, "no cost without validation");
    await form.getByRole("checkbox", { name: /Validate and rate/ }).check();

    const tooMany = ["email", ...Array.from({ length: 10_001 }, (_, i) => `q${i}@acme.test`)].join("\n");
    await form
      .getByTestId("csv-file")
      .setInputFiles({ name: "big.csv", mimeType: "text/csv", buffer: Buffer.from(tooMany) });
    await form.getByTestId("csv-problem").filter({ hasText: "10,001 rows; the limit is 10,000" }).waitFor();
    assert.equal(await form.getByTestId("csv-import").isDisabled(), true);

    // The estimate is what the import charges.
    const comma = "email,company\ndan@acme.test,Acme\neve@acme.test,Acme\n";
    await form
      .getByTestId("csv-file")
      .setInputFiles({ name: "two.csv", mimeType: "text/csv", buffer: Buffer.from(comma) });
    await form.getByTestId("cost-estimate").filter({ hasText: "costs 4 credits" }).waitFor();
    await form.getByTestId("csv-import").click();
    await page.getByTestId("import-result").filter({ hasText: "Imported 2 leads" }).waitFor();
    assert.equal(await balance(), have - 4);
  });

  it("says 1 credit in the singular: the balance, the banner and a 402", async () => {
    await page.getByTestId("sign-out").click();
    await page.goto(await service.signinLink("penny_user"));
    const balanceText = page.getByTestId("overview-balance");
    await balanceText.filter({ hasText: /^1 credit$/ }).waitFor();
    assert.match(await text(page.getByTestId("low-balance")), /1 credit left, enough for 1 check\./);
    await nav("Import").click();
    await page.getByRole("radio", { name: /Domains/ }).check();
    await page.getByTestId("paste-list").fill("acme.test\nparked.test");
    await page.getByRole("button", { name: "Start batch of 2" }).click();
    const refusal = page.getByTestId("error-402");
    await refusal.waitFor();
    assert.match(await text(refusal), /This needs 2 credits; your balance is 1 credit\./);
    await browser.screenshot(page, "import-402-singular");
  });

  it("threw no script errors on any page", () => {
    assert.deepEqual(browser.problems, []);
  });
});
