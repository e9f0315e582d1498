// Browser tests drive Debian's Chromium (/usr/bin/chromium) with playwright-core against the real
// service started as a subprocess, with the network checks pointed at loopback fakes. Nothing here
// reaches beyond 127.0.0.1: Chromium's own background traffic is switched off.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AxeBuilder } from "@axe-core/playwright";
import { type BrowserContext, chromium, type Locator, type Page } from "playwright-core";
import { SigninLinks } from "../../src/accounts/signin.service.js";
import { createEmptyDatabase } from "../support/db.js";
import type { Zone } from "../support/dns-server.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { TEST_ADMIN_TOKEN, TEST_JWT_SECRET, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { freePort, type Proc, runCli, startProcess, waitHealthy } from "../support/process.js";
import { type RdapAnswer, startRdapServer } from "../support/rdap-server.js";
import type { MxBehaviour } from "../support/smtp-server.js";

const CHROMIUM = "/usr/bin/chromium";
const DIST_INDEX = fileURLToPath(new URL("../../dashboard/dist/index.html", import.meta.url));
const SCREENSHOTS = fileURLToPath(new URL("../../test-artifacts/screenshots/", import.meta.url));
/** One JSON file per checked page: axe's violations by impact, and the rules that passed. */
const A11Y_REPORTS = fileURLToPath(new URL("../../test-artifacts/a11y/", import.meta.url));
/** Impacts that fail a page. Moderate and minor findings are recorded in the report only. */
const BLOCKING_IMPACTS = new Set(["serious", "critical"]);
/** How long `text` waits for a region still saying "Loading…" to fill in. */
const LOADED_WITHIN_MS = 10_000;
/**
 * An element's text, "" for none. A region that still shows the dashboard's "Loading…"
 * placeholder is read again until its data has arrived (or the wait runs out, and the placeholder
 * is what the assertion sees), so a test never races the page's first fetch.
 */
export const text = async (locator: Locator): Promise<string> => {
  const deadline = Date.now() + LOADED_WITHIN_MS;
  for (;;) {
    const content = (await locator.textContent()) ?? "";
    if (!content.includes("Loading…") || Date.now() > deadline) return content;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

export const NARROW_VIEWPORT = { width: 375, height: 812 };
/** Names the deepest elements that reach past the viewport's right edge (for the failure message). */
const WIDEST_ELEMENTS = `(() => {
  const limit = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.right <= limit + 1 || r.width === 0) continue;
    if ([...el.children].some((c) => c.getBoundingClientRect().right > limit + 1)) continue;
    out.push(el.tagName.toLowerCase() + (typeof el.className === "string" && el.className ? "." + el.className.split(" ").join(".") : "") + " (" + Math.round(r.right) + " px)");
    if (out.length === 6) break;
  }
  return out.join(", ");
})()`;

/** Why the browser tests cannot run here, or false. With CI=true a missing browser is a failure. */
export function browserSkipReason(): string | false {
  if (existsSync(CHROMIUM)) return false;
  const message = `${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`;
  if (process.env.CI === "true") throw new Error(`${message}: CI=true, failing instead of skipping`);
  console.warn(`NOTICE: ${message}; skipping the browser tests`);
  return message;
}

export interface Service {
  url: string;
  env: Record<string, string>;
  proc: Proc;
  fake: FakeInternet;
  /** `leadcheck dashboard link` run as a subprocess, as an operator would. */
  signinLink(user: string, ttl?: string): Promise<string>;
  /** A sign-in link minted `ageMs` ago (15-minute lifetime), for refusals. */
  oldSigninLink(user: string, ageMs: number): Promise<string>;
  close(): Promise<void>;
}

/** More of the fake internet: DNS names, and a fake RDAP registry (registration dates) for the
 *  domain facts. */
export interface FakeWorld {
  zone?: Zone;
  registry?: Record<string, RdapAnswer>;
  /** More mail hosts of the fake internet (see startFakeInternet). */
  mx?: Record<string, MxBehaviour>;
}

/** The real `leadcheck serve` on SQLite with its embedded worker, against the fake internet. */
export async function startService(
  extraEnv: Record<string, string> = {},
  world: FakeWorld = {},
): Promise<Service> {
  if (!existsSync(DIST_INDEX)) {
    throw new Error("dashboard/dist is missing: run `npm run build:dashboard` (npm install runs it)");
  }
  const fake = await startFakeInternet(
    {
      ...(world.registry ? { "rdap.test": { A: ["127.0.0.1"] } } : {}),
      ...world.zone,
    },
    world.mx ?? {},
  );
  const rdap = world.registry
    ? await startRdapServer(world.registry, await fake.pki.issue(["rdap.test"]))
    : null;
  if (rdap) extraEnv = { RDAP_BOOTSTRAP_URL: rdap.serveBootstrap(["test"]), ...extraEnv };
  const dir = mkdtempSync(join(tmpdir(), "leadcheck-browser-"));
  const caFile = join(dir, "test-ca.pem");
  writeFileSync(caFile, fake.ca);
  const db = await createEmptyDatabase("sqlite");
  // A test that must know the address first (an OIDC provider's redirect URI) passes PORT.
  const port = extraEnv.PORT ? Number(extraEnv.PORT) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    ...fake.env,
    ...UNLIMITED_RATE_ENV,
    NODE_EXTRA_CA_CERTS: caFile,
    DATABASE_URL: db.url,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    HOST: "127.0.0.1",
    PORT: String(port),
    ...extraEnv,
  };
  const proc = startProcess(["serve"], env);
  await waitHealthy(port, proc);
  return {
    url,
    env,
    proc,
    fake,
    async signinLink(user, ttl = "15m") {
      const run = await runCli(["dashboard", "link", "--user", user, "--ttl", ttl, "--url", url], env);
      if (run.code !== 0) throw new Error(`dashboard link failed: ${run.output}`);
      const link = /^http\S+#signin=\S+$/m.exec(run.output)?.[0];
      if (!link) throw new Error(`no link in: ${run.output}`);
      return link;
    },
    async oldSigninLink(user, ageMs) {
      const issuedAt = Date.now() - ageMs;
      const links = new SigninLinks({ secret: TEST_JWT_SECRET, clock: { now: () => new Date(issuedAt) } });
      const link = await links.createLink(user, 15 * 60_000, url);
      if (link.kind !== "link") throw new Error(link.kind);
      return link.url;
    },
    async close() {
      if (proc.child.exitCode === null) proc.child.kill("SIGTERM");
      await proc.exitCode();
      await fake.close();
      await rdap?.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Errors the pages threw or logged: a test asserts there were none. */
  problems: string[];
  newPage(): Promise<Page>;
  /** Checks the page with axe-core (a serious or critical violation fails the test), then saves
   *  test-artifacts/screenshots/<name>.png. Every page a test shows goes through here. */
  screenshot(page: Page, name: string): Promise<void>;
  /** The same at 375 px wide (a phone), with a check that nothing makes the page scroll sideways. */
  screenshotNarrow(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** `extraArgs`: more Chromium flags (the widget test maps test host names to loopback). */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "leadcheck-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
    viewport: { width: 1280, height: 800 },
    locale: "en-US",
    timezoneId: "UTC",
    acceptDownloads: true,
    timeout: 30_000,
  });
  // One step's budget (a click, a locator to appear). At TEST_CONCURRENCY=4 four Chromiums, four
  // services and their test processes share the machine's cores, and a step took over 15 s.
  context.setDefaultTimeout(30_000);
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      // Failed requests are the API's refusals that the tests provoke on purpose; they show in the page.
      if (message.type() === "error" && !/Failed to load resource/.test(message.text()))
        problems.push(`console error: ${message.text()}`);
    });
  };
  context.on("page", watch);
  const first = context.pages()[0];
  if (first) watch(first);
  const page = first ?? (await context.newPage());
  mkdirSync(SCREENSHOTS, { recursive: true });
  mkdirSync(A11Y_REPORTS, { recursive: true });
  const shoot = async (target: Page, name: string) => {
    await checkAccessibility(target, name);
    await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };
  return {
    context,
    page,
    problems,
    newPage: () => context.newPage(),
    screenshot: shoot,
    async screenshotNarrow(target, name) {
      const before = target.viewportSize();
      await target.setViewportSize(NARROW_VIEWPORT);
      try {
        await shoot(target, name);
        const overflow = await target.evaluate(
          "document.documentElement.scrollWidth - document.documentElement.clientWidth",
        );
        if (Number(overflow) > 0) {
          throw new Error(
            `${name}: the page scrolls sideways by ${overflow} px at 375 px; widest: ${await target.evaluate(WIDEST_ELEMENTS)}`,
          );
        }
      } finally {
        if (before) await target.setViewportSize(before);
      }
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

interface A11yReport {
  page: string;
  url: string;
  width: number;
  violations: { id: string; impact: string | null; help: string; nodes: string[] }[];
  passes: number;
  /** Serious and critical violations: the test fails on any. */
  blocking: number;
}

/** Runs every axe-core rule on the page as it is now and writes test-artifacts/a11y/<name>.json;
 *  throws when a violation is serious or critical. */
async function checkAccessibility(page: Page, name: string): Promise<A11yReport> {
  const results = await new AxeBuilder({ page }).analyze();
  const violations = results.violations.map((v) => ({
    id: v.id,
    impact: v.impact ?? null,
    help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
  }));
  const report: A11yReport = {
    page: name,
    url: page.url(),
    width: page.viewportSize()?.width ?? 0,
    violations,
    passes: results.passes.length,
    blocking: violations.filter((v) => v.impact !== null && BLOCKING_IMPACTS.has(v.impact)).length,
  };
  writeFileSync(join(A11Y_REPORTS, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  if (report.blocking > 0) {
    const list = violations
      .filter((v) => v.impact !== null && BLOCKING_IMPACTS.has(v.impact))
      .map((v) => `${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(", ")}`)
      .join("; ");
    throw new Error(`${name}: axe found ${report.blocking} serious or critical violation(s): ${list}`);
  }
  return report;
}
