// Builds the real service (real storage, real app) for a test, on a fresh database of the given
// dialect, with helpers to mint identity tokens and API keys like a user would.
import type { LightMyRequestResponse } from "fastify";
import { SignJWT } from "jose";
import type { DatabaseKind } from "../../src/config/config.js";
import { DEFAULT_ENDPOINT_LIMITS_PER_MINUTE, loadConfig } from "../../src/config/config.js";
import type { App } from "../../src/http/app.js";
import type { Clock } from "../../src/lib/clock.js";
import { buildHttpApp, createServices, type Services, startQueue } from "../../src/main.js";
import { registerWorkers } from "../../src/worker.js";
import { createTestDatabase, type TestDatabase } from "./db.js";

export const TEST_JWT_SECRET = "test-secret-for-hs256-tokens-only";
export const TEST_ADMIN_TOKEN = "test-admin-token";

/** Rate limits raised out of the way, for tests that are not about rate limiting. */
export const UNLIMITED_RATE_ENV: Record<string, string> = {
  RATE_LIMIT_PER_MINUTE: "100000",
  RATE_LIMIT_PER_HOUR: "100000",
  RATE_LIMIT_ENDPOINTS: Object.keys(DEFAULT_ENDPOINT_LIMITS_PER_MINUTE)
    .map((route) => `${route}=100000`)
    .join(","),
};

/** An identity token for the account, as the tests' services (AUTH_JWT_SECRET) accept it. */
export function testToken(accountId: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(accountId)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}

export interface Harness {
  app: App;
  services: Services;
  testDb: TestDatabase;
  token(accountId: string): Promise<string>;
  /** Creates an API key for the account through the API and returns the secret. */
  apiKey(accountId: string, name?: string): Promise<string>;
  /** An API call with `apiKey` (a JSON body when `payload` is given), through app.inject. */
  call(
    apiKey: string,
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    url: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startHarness(
  kind: DatabaseKind,
  env: Record<string, string> = {},
  options: { clock?: Clock; websiteCa?: string; workers?: boolean } = {},
): Promise<Harness> {
  const testDb = await createTestDatabase(kind);
  const config = loadConfig({
    NODE_ENV: "test",
    DATABASE_URL: testDb.url,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: "silent",
    ...env,
  });
  const services = await createServices(config, {
    migrate: false,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.websiteCa ? { websiteCa: options.websiteCa } : {}),
  });
  await startQueue(services);
  if (options.workers) await registerWorkers(services);
  const app = await buildHttpApp(services);
  await app.ready();

  const token = testToken;

  return {
    app,
    services,
    testDb,
    token,
    call: (apiKey, method, url, payload) =>
      app.inject({
        method,
        url,
        headers: { "x-api-key": apiKey },
        ...(payload === undefined ? {} : { payload: payload as object }),
      }),
    async apiKey(accountId, name = "test key") {
      const res = await app.inject({
        method: "POST",
        url: "/v1/auth/keys",
        headers: { authorization: `Bearer ${await token(accountId)}` },
        payload: { name },
      });
      if (res.statusCode !== 201) throw new Error(`key creation failed: ${res.statusCode} ${res.body}`);
      return res.json().api_key as string;
    },
    async close() {
      await app.close();
      await services.close();
      await testDb.destroy();
    },
  };
}
