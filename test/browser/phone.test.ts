// Every page at 375 px in Chromium (a phone held upright) against the real service: nothing scrolls
// sideways (screenshotNarrow fails the test when it does, and runs axe), tables are cards with
// their actions visible on one line, emails and URLs break only at their natural points, and the
// lead filters fold behind a toggle so the first lead is on the first screen.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { testToken } from "../support/harness.js";
import { waitFor } from "../support/wait-for.js";
import {
  type Browser,
  browserSkipReason,
  launchBrowser,
  NARROW_VIEWPORT,
  type Service,
  startService,
  text,
} from "./browser-support.js";

const skip = browserSkipReason();
const USER = "phone_user";
const LONG_EMAIL = "alexandra.montgomery-smythe@international-business-consulting.acme.test";
const LONG_URL = `https://acme.test/${"very-long-path-segment/".repeat(5)}receiver`;

/** Where the element's text wraps: the characters on either side of each line break (run in the
 *  page, hence a string). */
const LINE_BREAKS = `((el) => {
  const chars = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (rect) chars.push({ ch: node.data[i], top: rect.top });
    }
  }
  const breaks = [];
  for (let i = 1; i < chars.length; i++)
    if (chars[i].top > chars[i - 1].top + 2) breaks.push(chars[i - 1].ch + "|" + chars[i].ch);
  return breaks;
})`;

/** A break after "@", "/", "-", "_" or before a dot is where a reader expects one. */
const sensible = (pair: string) => /^[@/\-_?&=]\|/.test(pair) || /\|\.$/.test(pair);

describe("every page at 375 px in Chromium", { skip }, () => {
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
  const nav = (label: string) =>
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: label });
  /** A card list instead of a table, and each action button inside the screen on one line. */
  const assertCards = async (testId: string, actions: string[] = []) => {
    const list = page.getByTestId(testId);
    await list.waitFor();
    assert.equal(await list.evaluate((el) => el.tagName), "UL", `${testId} is a list of cards`);
    for (const name of actions) {
      const button = list.getByRole("button", { name }).first();
      await assertOneLine(button, name);
    }
  };
  const assertOneLine = async (button: Locator, name: string) => {
    const box = await button.boundingBox();
    assert.ok(box, `${name} is visible`);
    assert.ok(
      box.x >= 0 && box.x + box.width <= NARROW_VIEWPORT.width,
      `${name} inside the screen: ${JSON.stringify(box)}`,
    );
    // One line of button is 38 px tall here, two are 62.
    assert.ok(box.height < 50, `${name} on one line (${box.height} px tall)`);
    const [scroll, client] = await button.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    assert.ok(scroll! <= client!, `${name} not clipped (${scroll} > ${client})`);
  };
  /** Checks the first element matching `selector` whose text holds `needle`. */
  const assertBreaks = async (selector: string, needle: string, what: string) => {
    const breaks = (await page.evaluate(
      `${LINE_BREAKS}([...document.querySelectorAll(${JSON.stringify(selector)})].find((e) => e.textContent.includes(${JSON.stringify(needle)})))`,
    )) as string[];
    assert.ok(breaks.length > 0, `${what} is long enough to wrap at 375 px`);
    for (const pair of breaks)
      assert.ok(sensible(pair), `${what} breaks at "${pair}" (all: ${breaks.join(" ")})`);
  };

  before(async () => {
    [service, browser] = await Promise.all([startService(), launchBrowser()]);
    page = browser.page;
    await page.setViewportSize(NARROW_VIEWPORT);
    auth = { authorization: `Bearer ${await testToken(USER)}` };
    const seeded = await api("POST", "/v1/leads/bulk", {
      leads: [
        { email: "alice@acme.test", website: "acme.test", company: "Acme Inc.", first_name: "Alice" },
        { email: "ghost@acme.test", company: "Acme Inc." },
      ],
    });
    assert.equal(seeded.status, 200, JSON.stringify(seeded.body));
    const more = await api("POST", "/v1/leads/bulk", {
      validate: false,
      leads: [
        { email: LONG_EMAIL, website: "international-business-consulting.acme.test", company: "IBC" },
        ...Array.from({ length: 6 }, (_, i) => ({ email: `person${i}@acme.test`, company: "Globex" })),
      ],
    });
    assert.equal(more.body.created, 7);
    const key = await api("POST", "/v1/auth/keys", { name: "Production server (EU)" });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const hook = await api("POST", "/v1/webhooks", {
      url: LONG_URL,
      events: ["lead.validated"],
      name: "CRM",
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    await waitFor(
      async () =>
        (await api("GET", "/v1/leads?validationStatus=processing&limit=1")).body.total === 0
          ? true
          : undefined,
      "the seeded leads settled",
      30_000,
      100,
    );
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it("sign-in, then the overview", async () => {
    await page.goto(`${service.url}/dashboard/`);
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    await browser.screenshotNarrow(page, "phone-signin");
    await page.goto(await service.signinLink(USER));
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.getByTestId("overview-balance").waitFor();
    await page.getByTestId("verify-input").fill(LONG_EMAIL);
    await page.getByTestId("verify-submit").click();
    await page.getByTestId("verdict-card").waitFor({ timeout: 30_000 });
    await assertBreaks(".verdict-card .subject", LONG_EMAIL, "the checked email");
    await browser.screenshotNarrow(page, "phone-overview");
  });

  it("leads: cards, filters behind a toggle, the first lead on the first screen", async () => {
    await nav("Leads").click();
    const first = page.getByTestId("lead-row").first();
    await first.waitFor();
    await assertCards("leads-table");
    const box = await first.boundingBox();
    assert.ok(box && box.y + 40 < NARROW_VIEWPORT.height, `the first lead starts at ${box?.y} px`);
    const filters = page.getByTestId("lead-filters");
    assert.equal(await filters.isVisible(), false, "filters folded");
    const toggle = page.getByTestId("filters-toggle");
    assert.equal(await toggle.getAttribute("aria-expanded"), "false");
    await browser.screenshotNarrow(page, "phone-leads");

    await assertBreaks("[data-testid=lead-row] a", LONG_EMAIL, "a long email in its card");

    await toggle.click();
    await filters.waitFor();
    await filters.getByLabel("Validation status").selectOption("new");
    await filters.getByRole("button", { name: "Apply filters" }).click();
    await page.getByTestId("lead-count").filter({ hasText: "7 leads match" }).waitFor();
    assert.equal(await text(toggle), "Filters (1)");
    assert.equal(await filters.isVisible(), false, "applying folds the filters again");
    await page.getByTestId("select-all").check();
    await page.getByTestId("bulk-bar").waitFor();
    await browser.screenshotNarrow(page, "phone-leads-selected");
    await page.getByTestId("sort-select").selectOption("email:desc");
    await page.waitForURL(/sort=email%3Adesc/);
  });

  it("a lead, with a long email and website", async () => {
    await page.getByRole("link", { name: LONG_EMAIL }).click();
    const title = page.getByTestId("lead-email");
    await title.waitFor();
    await assertBreaks("[data-testid=lead-email]", LONG_EMAIL, "the lead's title");
    await browser.screenshotNarrow(page, "phone-lead");
  });

  it("import and a batch", async () => {
    await nav("Import").click();
    await page.getByTestId("csv-file").setInputFiles({
      name: "leads.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(
        `email,company,linkedin\n${LONG_EMAIL},IBC,https://www.linkedin.com/in/a-very-long-profile-name\n`,
      ),
    });
    await page.getByTestId("csv-preview").waitFor();
    await browser.screenshotNarrow(page, "phone-import-preview");
    await page.getByRole("radio", { name: /Domains/ }).check();
    await page.getByTestId("paste-list").fill("acme.test\ninternational-business-consulting.acme.test");
    await page.getByRole("button", { name: "Start batch of 2" }).click();
    await page.getByTestId("batch-status").filter({ hasText: "Finished" }).waitFor({ timeout: 30_000 });
    await assertCards("batch-results");
    await browser.screenshotNarrow(page, "phone-import-batch");
    const batches = (await api("GET", "/v1/batches?limit=1")).body.batches as { batchId: string }[];
    await page.goto(`${service.url}/dashboard/batches/${batches[0]!.batchId}`);
    await page.getByTestId("batch-result").first().waitFor();
    await browser.screenshotNarrow(page, "phone-batch");
  });

  it("API keys: Revoke visible on one line", async () => {
    await nav("API keys").click();
    await assertCards("keys-table", ["Revoke Production server (EU)"]);
    await browser.screenshotNarrow(page, "phone-keys");
  });

  it("credits: the ledger as cards", async () => {
    await nav("Credits").click();
    await assertCards("ledger-table");
    await browser.screenshotNarrow(page, "phone-credits");
  });

  it("webhooks: Edit, New secret and Delete visible, the URL broken at its slashes", async () => {
    await nav("Webhooks").click();
    await assertCards("webhooks-table", ["Edit CRM", "New secret for CRM", "Delete CRM"]);
    await assertBreaks("[data-testid=webhook-row] .url-cell", "receiver", "the webhook URL");
    await page.getByRole("link", { name: "CRM" }).click();
    await page.getByTestId("send-test").click();
    await page.getByTestId("test-outcome").waitFor();
    await assertCards("deliveries-table");
    await browser.screenshotNarrow(page, "phone-webhooks");
  });

  it("threw no script errors on any page", () => {
    assert.deepEqual(browser.problems, []);
  });
});
