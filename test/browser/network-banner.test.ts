// The dashboard's network banner in Chromium against the real service (a `leadcheck serve`
// subprocess checking its network every 200 ms): while the local resolver lies, every page shows
// what is down, since when, and what to set (DNS_SERVERS); once it is fixed the banner goes.
// Start-up printed the one human line with the dashboard's address.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
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
const USER = "network_user";

describe("network banner in Chromium", { skip }, () => {
  let service: Service;
  let browser: Browser;

  const dnsState = async () => {
    const ready = (await fetch(`${service.url}/readiness`).then((r) => r.json())) as {
      details?: { network?: { dns?: { state?: string } } };
    };
    return ready.details?.network?.dns?.state;
  };
  const untilDns = (state: string) =>
    waitFor(async () => ((await dnsState()) === state ? true : undefined), `DNS ${state}`, 15_000, 50);

  before(async () => {
    service = await startService({ NETWORK_CHECK_INTERVAL_MS: "200" });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it("start-up printed where the API and the dashboard are", () => {
    const port = new URL(service.url).port;
    assert.match(
      service.proc.output(),
      new RegExp(
        `leadcheck listening on http://127\\.0\\.0\\.1:${port} — dashboard http://127\\.0\\.0\\.1:${port}/dashboard/`,
      ),
    );
  });

  it("shows what is down and what to set while the resolver lies, and nothing once it is fixed", async () => {
    const page = browser.page;
    await untilDns("ok");
    service.fake.dns.setMode("nxdomain");
    await untilDns("down");
    await page.goto(await service.signinLink(USER));
    await page.getByTestId("signed-in-as").filter({ hasText: USER }).waitFor();
    const banner = page.getByTestId("network-banner-dns");
    await banner.waitFor();
    assert.match(
      await text(banner),
      /DNS is down since .*resolver_unavailable.*refused without charge.*DNS_SERVERS/s,
    );
    await browser.screenshot(page, "network-banner");
    await browser.screenshotNarrow(page, "network-banner-narrow");

    service.fake.dns.setMode("normal");
    await untilDns("ok");
    await page.reload();
    await page.getByTestId("signed-in-as").waitFor();
    await page.getByRole("heading").first().waitFor();
    assert.equal(await page.getByTestId("network-banner").count(), 0);
    assert.deepEqual(browser.problems, []);
  });
});
