// The API keys and Connections pages in Chromium against the real service, with the fake Google
// and HubSpot APIs standing in: every form's rules shown before sending, what the API then stores,
// a sheet and a HubSpot sync run from the page to completion, the lead's way back to its sheet, and
// each page at desktop width and at 375 px (axe, no sideways scroll, screenshots).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { openSqlite } from "../../src/storage/sqlite-driver.js";
import { type FakeGoogle, startFakeGoogle } from "../support/fake-google.js";
import { type FakeHubSpot, startFakeHubSpot } from "../support/fake-hubspot.js";
import { testToken } from "../support/harness.js";
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
const USER = "settings_user";

describe("API keys and Connections pages in Chromium", { skip }, () => {
  let service: Service;
  let browser: Browser;
  let google: FakeGoogle;
  let hubspot: FakeHubSpot;
  let page: Page;
  let auth: Record<string, string>;

  const api = async (method: string, path: string) => {
    const res = await fetch(service.url + path, { method, headers: auth });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  /** The service's logged errors, for a failure message. */
  const serverErrors = () =>
    service.proc
      .output()
      .split("\n")
      .filter((line) => /"level":5\d/.test(line))
      .slice(-3)
      .join("\n");

  before(async () => {
    [google, hubspot] = await Promise.all([startFakeGoogle(), startFakeHubSpot()]);
    [service, browser] = await Promise.all([
      startService({
        ALLOW_PRIVATE_TARGETS: "true",
        LEADCHECK_SECRET_KEY: "test-secret-key-for-connection-credentials",
        GOOGLE_SHEETS_API_URL: google.sheetsUrl,
        GOOGLE_OAUTH_TOKEN_URL: google.tokenUrl,
        HUBSPOT_API_URL: hubspot.url,
        INTEGRATION_RETRY_BASE_DELAY_MS: "10",
        INTEGRATION_RETRY_MAX_DELAY_MS: "100",
        SYNC_POLL_INTERVAL_MS: "50",
        // The schedule's runs stay out of the way: the test reads verdicts it backdated.
        REVALIDATION_TICK_MS: "3600000",
      }),
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
    await Promise.all([google?.close(), hubspot?.close()]);
  });

  it("creates a publishable key: origins checked as the API checks them, test mode, the snippet", async () => {
    await page.goto(`${service.url}/dashboard/keys`);
    const form = page.getByTestId("create-key-form");
    await form.getByTestId("type-publishable").check();
    await form.getByLabel("Name", { exact: true }).fill("Signup form");
    const submit = form.getByRole("button", { name: "Create publishable key" });
    assert.equal(await submit.isDisabled(), true, "no origin yet: nothing to send");

    const addOrigin = async (origin: string) => {
      await form.getByTestId("origin-input").fill(origin);
      await form.getByRole("button", { name: "Add origin" }).click();
    };
    await addOrigin("https://shop.example.com/signup");
    assert.match(await text(form.getByTestId("origin-problem")), /no path/);
    assert.equal(await submit.isDisabled(), true, "a bad origin blocks the form");
    await form.getByRole("button", { name: "Remove https://shop.example.com/signup" }).click();
    assert.equal(await form.getByTestId("origin").count(), 0);

    await addOrigin("http://localhost:5173");
    assert.match(await text(form.getByTestId("origin-problem")), /test-mode keys only/);
    await form.getByTestId("test-mode").check();
    assert.equal(await form.getByTestId("origin-problem").count(), 0, "local origins are fine in test mode");
    await addOrigin("https://*.example.com");
    await submit.click();

    const key = await page.getByTestId("new-key-value").inputValue();
    assert.match(key, /^pk_[A-Za-z0-9]{40}$/);
    assert.equal(
      await page.getByTestId("new-key-snippet").inputValue(),
      `<script src="${service.url}/widget.js" data-key="${key}" async></script>`,
    );
    await page.getByTestId("test-mode-banner").waitFor();
    const row = page.getByTestId("key-row").filter({ hasText: "Signup form" });
    assert.match(await text(row), /test/);
    assert.match(
      await text(row.getByTestId("key-origins")),
      /http:\/\/localhost:5173.*https:\/\/\*\.example\.com/,
    );

    const listed = (await api("GET", "/v1/auth/keys")).body.keys as Record<string, unknown>[];
    const stored = listed.find((k) => k.name === "Signup form");
    assert.deepEqual(
      [stored?.type, stored?.mode, stored?.allowedOrigins],
      ["publishable", "test", ["http://localhost:5173", "https://*.example.com"]],
    );
    await row.getByRole("button", { name: "Snippet for Signup form" }).click();
    assert.match(await page.getByTestId("snippet-value").inputValue(), new RegExp(`data-key="${key}"`));
    await page.getByRole("button", { name: "I have stored it" }).click();
  });

  it("creates a secret key limited to two permissions, an IP block and an expiry", async () => {
    const form = page.getByTestId("create-key-form");
    await form.getByLabel(/^Secret/).check();
    await form.getByLabel("Name", { exact: true }).fill("Reporting job");
    assert.equal(await form.getByTestId("test-mode").isChecked(), false, "a new key is live unless asked");
    await form.getByTestId("all-permissions").uncheck();
    const submit = form.getByRole("button", { name: "Create secret key" });
    assert.equal(await submit.isDisabled(), true, "no permission chosen");
    await form.getByRole("checkbox", { name: /leads:read/ }).check();
    await form.getByRole("checkbox", { name: /credits:read/ }).check();
    await form.getByTestId("allowed-ips").fill("203.0.113.0/24\n10.0.0.300\n2001:db8::/129");
    const problems = await text(form.getByTestId("ip-problems"));
    assert.match(problems, /10\.0\.0\.300 must be an IPv4 or IPv6 address or CIDR block/);
    assert.match(problems, /2001:db8::\/129 prefix length must be 0-128/);
    assert.equal(await submit.isDisabled(), true);
    await form.getByTestId("allowed-ips").fill("203.0.113.0/24\n2001:db8::/32");
    assert.equal(await text(form.getByTestId("ip-problems")), "");
    await form.getByTestId("expires").fill("2030-06-01T12:00");
    await submit.click();
    await page.getByTestId("created-key").filter({ hasText: "Reporting job" }).waitFor();
    assert.match(await page.getByTestId("new-key-value").inputValue(), /^sk_/);

    const row = page.getByTestId("key-row").filter({ hasText: "Reporting job" });
    await row.waitFor();
    assert.match(
      await text(row.getByTestId("key-permissions")),
      /leads:read.*credits:read.*203\.0\.113\.0\/24/,
    );
    const listed = (await api("GET", "/v1/auth/keys")).body.keys as Record<string, unknown>[];
    const stored = listed.find((k) => k.name === "Reporting job");
    assert.deepEqual(stored?.permissions, ["leads:read", "credits:read"]);
    assert.deepEqual(stored?.allowedIps, ["203.0.113.0/24", "2001:db8::/32"]);
    assert.equal(
      stored?.expiresAt,
      new Date("2030-06-01T12:00:00Z").toISOString(),
      "the browser runs in UTC",
    );

    await page.getByRole("button", { name: "I have stored it" }).click();
    await browser.screenshot(page, "keys-desktop");
    await browser.screenshotNarrow(page, "keys-phone");
    assert.deepEqual(browser.problems, []);
  });

  it("connects a Google service account, shows its email to share the sheet with, syncs a sheet", async () => {
    const account = google.newServiceAccount();
    const sheet = google.addSpreadsheet({
      spreadsheetId: "sheetSignups2026",
      sheets: {
        Signups: [
          ["Email", "Company"],
          ["alice@acme.test", "Acme Inc."],
          ["bob@acme.test", "Acme Inc."],
        ],
        Vorjahr: [
          ["Vorname", "E-Mail-Adresse", "Firma"],
          ["Dora", "dora@acme.test", "Acme GmbH"],
        ],
      },
    });
    sheet.sharedWith.add(account.client_email);

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Connections" }).click();
    const form = page.getByTestId("connect-form");
    await form.getByTestId("connection-name").fill("Signup sheet");
    await form.getByTestId("sa-json").fill("{ not json");
    assert.match(await text(form), /This is not JSON/);
    await form.getByTestId("sa-file").setInputFiles({
      name: "leadcheck-sync.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(account)),
    });
    await form.getByTestId("share-hint").waitFor();
    assert.equal(await text(form.getByTestId("service-account-email")), account.client_email);
    await form.getByRole("button", { name: "Connect" }).click();
    await page.getByTestId("connection-row").or(form.getByTestId("error")).first().waitFor();
    assert.equal(await form.getByTestId("error").count(), 0, serverErrors());

    const row = page.getByTestId("connection-row").filter({ hasText: "Signup sheet" });
    assert.equal(await text(row.getByTestId("connection-status")), "active");
    assert.match(await text(row), new RegExp(account.client_email.replace(/\./g, "\\.")));

    const syncs = page.getByTestId("connection-syncs");
    await syncs
      .getByTestId("sync-sheet")
      .fill("https://docs.google.com/spreadsheets/d/sheetSignups2026/edit#gid=0");
    // The preview: the first tab's mapping, its rows and the cost, before anything runs.
    await syncs.getByRole("button", { name: "Preview mapping and cost" }).click();
    const preview = syncs.getByTestId("sync-preview");
    await preview.or(syncs.getByTestId("error")).first().waitFor();
    assert.equal(await syncs.getByTestId("error").count(), 0, serverErrors());
    assert.match(await text(preview.getByRole("heading")), /Preview of “Signups”/);
    const mapped = preview.getByTestId("preview-mapping");
    assert.equal(await text(mapped.getByRole("row", { name: /^Email/ }).getByRole("cell")), "Email");
    assert.equal(await text(mapped.getByRole("row", { name: /^Company/ }).getByRole("cell")), "Company");
    assert.equal(await text(mapped.getByRole("row", { name: /^Website/ }).getByRole("cell")), "not found");
    assert.equal(await preview.getByTestId("preview-rows").locator("tbody tr").count(), 2);
    assert.match(await text(preview.getByTestId("preview-rows")), /alice@acme\.test.*Acme Inc\./);
    assert.match(
      await text(preview.getByTestId("preview-total")),
      /2 rows with an email: 2 new, 0 already leads/,
    );
    assert.match(
      await text(preview.getByTestId("preview-cost")),
      /Validating 2 leads costs 4 credits\. Your balance of [\d,]+ credits covers it/,
    );
    assert.equal(google.writes.length, 0, "a preview writes nothing");
    // Another tab, picked from the spreadsheet's tabs: a German header mapped.
    await syncs.getByTestId("sync-tab-pick").selectOption("Vorjahr");
    await preview.getByRole("heading", { name: "Preview of “Vorjahr”" }).waitFor();
    assert.equal(await text(mapped.getByRole("row", { name: /^Email/ }).getByRole("cell")), "E-Mail-Adresse");
    assert.equal(await text(mapped.getByRole("row", { name: /^First name/ }).getByRole("cell")), "Vorname");
    await browser.screenshot(page, "connections-preview-desktop");
    await browser.screenshotNarrow(page, "connections-preview-phone");
    await syncs.getByTestId("sync-tab-pick").selectOption("Signups");
    await preview.getByRole("heading", { name: "Preview of “Signups”" }).waitFor();
    await syncs.getByRole("button", { name: "Run sync now" }).click();
    const done = syncs.getByTestId("sync-row").filter({ hasText: "completed" });
    await done.waitFor({ timeout: 60_000 });
    assert.match(
      await text(done.getByTestId("sync-counts")),
      /^2 read, 2 new, 0 matched, 2 validated, 2 written back/,
    );
    assert.ok(google.writes.length > 0, "verdicts were written back to the sheet");

    await browser.screenshot(page, "connections-desktop");
    await browser.screenshotNarrow(page, "connections-phone");
  });

  it("connects HubSpot with a pasted token, refuses a bad one with the API's words, syncs contacts", async () => {
    hubspot.addContact({ email: "carol@acme.test", firstname: "Carol", company: "Acme Inc." });
    const form = page.getByTestId("connect-form");
    await form.getByTestId("kind-hubspot").check();
    await form.getByTestId("connection-name").fill("Sales HubSpot");
    await form.getByTestId("hubspot-token").fill("pat-na1-not-a-real-token");
    await form.getByRole("button", { name: "Connect" }).click();
    await form.getByTestId("error").waitFor();

    await form.getByTestId("hubspot-token").fill(hubspot.newToken());
    await form.getByRole("button", { name: "Connect" }).click();
    const row = page.getByTestId("connection-row").filter({ hasText: "Sales HubSpot" });
    assert.equal(await text(row.getByTestId("connection-status")), "active");
    const syncs = page.getByTestId("connection-syncs");
    await syncs.getByRole("heading", { name: "Syncs of “Sales HubSpot”" }).waitFor();
    await syncs.getByTestId("sync-watch").selectOption({ label: "watch for new contacts every hour" });
    await syncs.getByRole("button", { name: "Run sync now" }).click();
    const done = syncs.getByTestId("sync-row").filter({ hasText: "completed" });
    await done.waitFor({ timeout: 60_000 });
    assert.match(await text(done.getByTestId("sync-counts")), /^1 read, 1 new/);
    assert.ok(
      hubspot.writes.some((w) => w.contactId),
      "verdicts were written to the contact",
    );
    const watch = syncs.getByTestId("watch");
    assert.match(await text(watch), /all contacts, every 60 minutes/);
    await watch.getByRole("button", { name: "Stop watching" }).click();
    await syncs.getByTestId("watches").waitFor({ state: "detached" });
    const all = (await api("GET", "/v1/connections")).body.connections as {
      connectionId: string;
      name: string;
    }[];
    const id = all.find((c) => c.name === "Sales HubSpot")?.connectionId;
    const one = (await api("GET", `/v1/connections/${id}`)).body;
    assert.ok(Array.isArray(one.watches), "the connection lists its watches");
    assert.deepEqual(one.watches, [], "the watch is stopped");
    assert.deepEqual(browser.problems, []);
  });

  it("a synced lead's page links back to its sheet", async () => {
    const found = await waitFor(
      async () => {
        const res = await api("GET", "/v1/leads?search=alice%40acme.test");
        return (res.body.leads as { id: string }[] | undefined)?.[0];
      },
      "the synced lead",
      10_000,
      100,
    );
    await page.goto(`${service.url}/dashboard/leads/${found.id}`);
    const link = page.getByTestId("external-source").getByRole("link");
    assert.equal(
      await link.getAttribute("href"),
      "https://docs.google.com/spreadsheets/d/sheetSignups2026/edit",
    );
    assert.match(await text(link), /tab “Signups”/);
    await browser.screenshotNarrow(page, "lead-synced-phone");
  });

  it("a synced HubSpot contact's lead page links to its record in the portal read at connect time", async () => {
    const connections = (await api("GET", "/v1/connections")).body.connections as {
      name: string;
      portalId: string | null;
    }[];
    const portalId = connections.find((c) => c.name === "Sales HubSpot")?.portalId;
    assert.match(portalId ?? "", /^\d+$/, "the portal id from HubSpot's account details");
    const contact = [...hubspot.contacts.values()].find((c) => c.properties.email === "carol@acme.test")!;
    const found = (await api("GET", "/v1/leads?search=carol%40acme.test")).body.leads as { id: string }[];
    await page.goto(`${service.url}/dashboard/leads/${found[0]!.id}`);
    const link = page.getByTestId("external-source").getByRole("link");
    assert.equal(
      await link.getAttribute("href"),
      `https://app.hubspot.com/contacts/${portalId}/record/0-1/${contact.id}`,
    );
    assert.match(await text(link), /Open its HubSpot contact/);
    await browser.screenshotNarrow(page, "lead-hubspot-phone");
    assert.deepEqual(browser.problems, []);
  });

  it("sets a re-validation schedule from the Connections page; verdicts older than its age show as stale", async () => {
    const found = (await api("GET", "/v1/leads?search=alice%40acme.test")).body.leads as {
      id: string;
      validatedAt: string | null;
    }[];
    const alice = found[0]!;
    assert.ok(alice.validatedAt, "validated by the sync");
    // A verdict from 40 days ago, written where the service keeps it.
    const file = service.env.DATABASE_URL!.replace(/^sqlite:/, "");
    const sqlite = openSqlite(file);
    sqlite
      .prepare("update leads set validated_at = ? where id = ?")
      .run(new Date(Date.now() - 40 * 86_400_000).toISOString(), alice.id);
    sqlite.close();

    await page.goto(`${service.url}/dashboard/connections`);
    const panel = page.getByTestId("revalidation");
    assert.match(await text(panel.getByTestId("revalidation-state")), /^Off\./);
    const form = panel.getByTestId("revalidation-form");
    await form.getByLabel("Verdicts older than (days)").fill("30");
    await form.getByLabel("Every (hours)").fill("0");
    assert.match(await text(form), /Hours: a whole number from 1 to 8760/);
    assert.equal(await form.getByRole("button", { name: "Turn on" }).isDisabled(), true);
    await form.getByLabel("Every (hours)").fill("168");
    await form.getByLabel("At most (credits per run)").fill("500");
    assert.match(await text(form), /Up to 250 leads per run at 2 credits each/);
    await form.getByRole("button", { name: "Turn on" }).click();
    await panel.getByText("Schedule saved.").waitFor();
    await panel.getByTestId("revalidation-state").filter({ hasText: /^On:/ }).waitFor();
    assert.match(
      await text(panel.getByTestId("revalidation-state")),
      /^On: verdicts older than 30 days, every 168 hours, at most 500 credits \(250 leads\) per run/,
    );
    const stored = (await api("GET", "/v1/settings/revalidation")).body;
    assert.deepEqual(
      { days: stored.olderThanDays, hours: stored.everyHours, cap: stored.maxCreditsPerRun },
      { days: 30, hours: 168, cap: 0.5 },
    );
    await browser.screenshot(page, "connections-revalidation-desktop");

    await page.goto(`${service.url}/dashboard/leads`);
    const row = page.getByTestId("lead-row").filter({ hasText: "alice@acme.test" });
    await row.getByTestId("stale-badge").waitFor();
    const bob = page.getByTestId("lead-row").filter({ hasText: "bob@acme.test" });
    assert.equal(await bob.getByTestId("stale-badge").count(), 0, "a fresh verdict is not stale");
    await page.goto(`${service.url}/dashboard/leads/${alice.id}`);
    await page.getByTestId("lead-rating").getByTestId("stale-badge").waitFor();

    await page.goto(`${service.url}/dashboard/connections`);
    await page.getByTestId("revalidation").getByRole("button", { name: "Turn off" }).click();
    await page.getByTestId("revalidation").getByText("Re-validation is off.").waitFor();
    assert.equal((await api("GET", "/v1/settings/revalidation")).body, null);
    assert.deepEqual(browser.problems, []);
  });
});
