// The Team page and the role-aware dashboard in Chromium against the real service: an owner
// invites with a role picker, withdraws a pending invitation, changes a role and removes a member,
// and cannot demote or remove the last owner (the server's message shown); an analyst of the team
// switches into it with the account switcher (kept across a reload) and sees no Invite, Remove,
// Archive or Erase, and a page its role cannot read answers with the server's 403 message.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { identityToken } from "../teams/team-support.js";
import {
  type Browser,
  browserSkipReason,
  launchBrowser,
  type Service,
  startService,
  text,
} from "./browser-support.js";

const skip = browserSkipReason();
const OWNER = "team_owner";
const ANALYST = "team_ana";
const DEVELOPER = "team_dev";

describe("Team page and roles in Chromium", { skip }, () => {
  let service: Service;
  let browser: Browser;
  let page: Page;

  const call = async (subject: string, method: string, path: string, body?: object, account?: string) => {
    const res = await fetch(service.url + path, {
      method,
      headers: {
        authorization: `Bearer ${await identityToken(subject)}`,
        ...(account ? { "x-account-id": account } : {}),
        ...(body ? { "content-type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field in the assertions
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  /** Brings `subject` into the owner's team the way a person would: invited, then accepted. */
  const join = async (subject: string, role: string) => {
    const invited = await call(OWNER, "POST", "/v1/team/invitations", {
      email: `${subject}@example.test`,
      role,
    });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    const accepted = await call(subject, "POST", `/v1/team/invitations/${invited.body.token}/accept`);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  };
  const nav = (label: string) =>
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: label });
  const navLabels = async () =>
    (await page.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents()).map((t) =>
      t.trim(),
    );

  before(async () => {
    [service, browser] = await Promise.all([startService(), launchBrowser()]);
    page = browser.page;
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: service.url });
    await call(OWNER, "GET", "/v1/team/members");
    await join(ANALYST, "analyst");
    await join(DEVELOPER, "developer");
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it("invites with a role, withdraws an invitation, changes a role, removes a member; the last owner stays", async () => {
    await page.goto(await service.signinLink(OWNER));
    await page.getByTestId("my-role").filter({ hasText: "owner" }).waitFor();
    assert.deepEqual(await navLabels(), [
      "Overview",
      "Leads",
      "Import",
      "API keys",
      "Widget",
      "Credits",
      "Webhooks",
      "Connections",
      "Team",
      "Audit log",
      "Settings",
    ]);
    await nav("Team").click();
    await page.getByRole("heading", { name: "Team" }).waitFor();
    const members = page.getByTestId("members-table");
    await members.getByText(`${ANALYST}@example.test`).first().waitFor();

    const invite = page.getByTestId("invite-form");
    await invite.getByTestId("invite-email").fill("newcomer@example.test");
    await invite.getByTestId("invite-role").selectOption("developer");
    assert.match(await text(page.getByTestId("role-help")), /developer: keys, webhooks/);
    await invite.getByTestId("invite-submit").click();
    const link = await page.getByTestId("invitation-url").inputValue();
    // The link's origin is PUBLIC_URL (unset here: the documented default).
    assert.match(link, /\/dashboard\/#invitation=inv_/);
    const pending = page.getByTestId("invitations-table");
    await pending.getByText("newcomer@example.test").first().waitFor();
    await browser.screenshot(page, "team");
    await browser.screenshotNarrow(page, "team-narrow");

    await page
      .getByRole("button", { name: "Withdraw the invitation for newcomer@example.test" })
      .first()
      .click();
    await page.getByRole("dialog").getByTestId("confirm").click();
    await page.getByTestId("team-status").filter({ hasText: "its link no longer works" }).waitFor();
    await page.getByTestId("empty").filter({ hasText: "No invitations waiting" }).waitFor();
    const token = link.split("#invitation=")[1]!;
    const dead = await fetch(`${service.url}/v1/team/invitations/${token}/accept`, {
      method: "POST",
      headers: { authorization: `Bearer ${await identityToken("newcomer")}` },
    });
    assert.equal(dead.status, 404, "a withdrawn link opens nothing");

    await page
      .getByRole("combobox", { name: `Role of ${DEVELOPER}@example.test` })
      .first()
      .selectOption("admin");
    await page
      .getByTestId("team-status")
      .filter({ hasText: `${DEVELOPER}@example.test is now admin` })
      .waitFor();
    const roles = (await call(OWNER, "GET", "/v1/team/members")).body.members as {
      subject: string;
      role: string;
    }[];
    assert.equal(roles.find((m) => m.subject === DEVELOPER)?.role, "admin");

    await page
      .getByRole("button", { name: `Remove ${DEVELOPER}@example.test` })
      .first()
      .click();
    await page.getByRole("dialog").getByTestId("confirm").click();
    await page.getByTestId("team-status").filter({ hasText: "was removed" }).waitFor();
    assert.equal((await call(DEVELOPER, "GET", "/v1/credits", undefined, OWNER)).status, 404);

    // The last owner: demoting or leaving is refused, in the server's words.
    await page
      .getByRole("combobox", { name: `Role of ${OWNER}` })
      .first()
      .selectOption("admin");
    await page.getByTestId("error").filter({ hasText: "An account keeps at least one owner" }).waitFor();
    await page
      .getByRole("button", { name: `Remove ${OWNER}` })
      .first()
      .click();
    await page.getByRole("dialog").getByTestId("confirm").click();
    await page.getByTestId("error").filter({ hasText: "An account keeps at least one owner" }).waitFor();
    const owner = (await call(OWNER, "GET", "/v1/team/members")).body.members as {
      subject: string;
      role: string;
    }[];
    assert.equal(owner.find((m) => m.subject === OWNER)?.role, "owner");
    assert.deepEqual(browser.problems, []);
  });

  it("an analyst switches into the team, keeps it across a reload, and is offered only what the role allows", async () => {
    const lead = await call(OWNER, "POST", "/v1/leads", { email: "read.only@lead.example", validate: false });
    assert.equal(lead.status, 201, JSON.stringify(lead.body));
    const tab = await browser.newPage();
    await tab.goto(await service.signinLink(ANALYST));
    await tab.getByTestId("my-role").filter({ hasText: "owner" }).waitFor();
    const switcher = tab.getByTestId("account-switcher");
    await switcher.selectOption(OWNER);
    await tab.getByTestId("my-role").filter({ hasText: "analyst" }).waitFor();
    await tab.reload();
    await tab.getByTestId("my-role").filter({ hasText: "analyst" }).waitFor();
    assert.equal(
      await tab.getByTestId("account-switcher").inputValue(),
      OWNER,
      "the choice survives a reload",
    );
    const labels = (
      await tab.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents()
    ).map((t) => t.trim());
    assert.deepEqual(labels, ["Overview", "Leads", "Credits", "Team"]);

    await tab.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Team" }).click();
    await tab.getByTestId("team-my-role").filter({ hasText: "analyst" }).waitFor();
    await tab.getByTestId("members-table").waitFor();
    assert.equal(await tab.getByTestId("invite-form").count(), 0);
    assert.equal(await tab.getByRole("button", { name: /^Remove / }).count(), 0);
    assert.equal(await tab.getByTestId("member-role").count(), 0);
    await browser.screenshotNarrow(tab, "team-analyst-narrow");

    await tab.goto(`${service.url}/dashboard/leads/${lead.body.id}`);
    await tab.getByText("read.only@lead.example").first().waitFor();
    for (const action of ["lead-archive", "lead-erase", "lead-edit"])
      assert.equal(await tab.getByTestId(action).count(), 0, action);

    // A page the role cannot read, opened by its address: the server's 403, not a broken page.
    await tab.goto(`${service.url}/dashboard/webhooks`);
    await tab
      .getByTestId("error")
      .filter({ hasText: "This needs the developer role or above (you are analyst)" })
      .waitFor();
    await tab.goto(`${service.url}/dashboard/settings`);
    await tab.getByText("Data settings need the admin or owner role.").waitFor();
    await tab.close();
    assert.deepEqual(browser.problems, []);
  });
});
