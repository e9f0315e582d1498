// A service with the widget's loopback world: the fake internet (DNS, SMTP) plus a slow mail host
// (slow.test answers RCPT after SLOW_RCPT_MS, beyond the widget's deadline) and a fake CAPTCHA.
import type { LightMyRequestResponse } from "fastify";
import type { DatabaseKind } from "../../src/config/config.js";
import { type FakeCaptcha, startFakeCaptcha } from "../support/fake-captcha.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

const SLOW_RCPT_MS = 1500;
export const WIDGET_DEADLINE_MS = 800;
export const SHOP = "https://shop.acme.test";

export interface WidgetWorld {
  h: Harness;
  fake: FakeInternet;
  captcha: FakeCaptcha;
  /** The environment the service was configured from (a second instance can share it). */
  env: Record<string, string>;
  /** Moves the service's clock (token expiry, UTC day). */
  advance(ms: number): void;
  keyOf(accountId: string, payload: Record<string, unknown>): Promise<{ api_key: string; key_id: string }>;
  check(
    key: string,
    email: string,
    options?: { origin?: string | null; referer?: string; ip?: string; captchaToken?: string },
  ): Promise<LightMyRequestResponse>;
  debits(accountId: string): Promise<number>;
  balanceMilli(accountId: string): Promise<number>;
  close(): Promise<void>;
}

export async function startWidgetWorld(
  kind: DatabaseKind,
  env: Record<string, string> = {},
): Promise<WidgetWorld> {
  const fake = await startFakeInternet(
    {
      "slow.test": { MX: [{ exchange: "mx.slow.test", priority: 10 }] },
      "mx.slow.test": { A: ["127.0.0.5"] },
    },
    { "127.0.0.5": { mailboxes: ["sam@slow.test"], firstRcptDelayMs: SLOW_RCPT_MS } },
  );
  const captcha = await startFakeCaptcha();
  let offsetMs = 0;
  const serviceEnv = {
    ...fake.env,
    ...captcha.env,
    ...UNLIMITED_RATE_ENV,
    WIDGET_DEADLINE_MS: String(WIDGET_DEADLINE_MS),
    WIDGET_TOKEN_SECRET: "widget-test-secret-of-at-least-32-chars",
    ...env,
  };
  const h = await startHarness(kind, serviceEnv, { clock: { now: () => new Date(Date.now() + offsetMs) } });
  const db = h.services.database.db;
  return {
    h,
    fake,
    captcha,
    env: { ...serviceEnv, DATABASE_URL: h.testDb.url },
    advance: (ms) => {
      offsetMs += ms;
    },
    async keyOf(accountId, payload) {
      const res = await h.app.inject({
        method: "POST",
        url: "/v1/auth/keys",
        headers: { authorization: `Bearer ${await h.token(accountId)}` },
        payload: { name: "widget", ...payload },
      });
      if (res.statusCode !== 201) throw new Error(`key creation failed: ${res.body}`);
      return res.json();
    },
    check(key, email, options = {}) {
      const origin = options.origin === undefined ? SHOP : options.origin;
      return h.app.inject({
        method: "POST",
        url: `/v1/widget/check-email?key=${key}`,
        headers: {
          ...(origin === null ? {} : { origin }),
          ...(options.referer ? { referer: options.referer } : {}),
        },
        remoteAddress: options.ip ?? "203.0.113.10",
        payload: { email, ...(options.captchaToken ? { captchaToken: options.captchaToken } : {}) },
      });
    },
    async debits(accountId) {
      const rows = await db
        .selectFrom("credit_ledger")
        .select("id")
        .where("account_id", "=", accountId)
        .where("kind", "=", "debit")
        .execute();
      return rows.length;
    },
    async balanceMilli(accountId) {
      const row = await db
        .selectFrom("accounts")
        .select("balance_milli")
        .where("id", "=", accountId)
        .executeTakeFirst();
      return Number(row?.balance_milli ?? 0);
    },
    async close() {
      await h.close();
      await fake.close();
      await captcha.close();
    },
  };
}
