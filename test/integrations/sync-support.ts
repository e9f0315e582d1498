// Shared set-up of the sync tests: the fake internet (for the checks), the Google and HubSpot
// fakes, and a harness with workers whose integration settings point at them.
import type { DatabaseKind } from "../../src/config/config.js";
import { type FakeGoogle, startFakeGoogle } from "../support/fake-google.js";
import { type FakeHubSpot, startFakeHubSpot } from "../support/fake-hubspot.js";
import { type FakeInternet, startFakeInternet } from "../support/fake-internet.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { waitFor } from "../support/wait-for.js";

export interface SyncWorld {
  h: Harness;
  net: FakeInternet;
  google: FakeGoogle;
  hubspot: FakeHubSpot;
  /** The service's environment (a worker subprocess started on the same database takes it). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startSyncWorld(
  kind: DatabaseKind,
  env: Record<string, string> = {},
  options: { workers?: boolean } = {},
): Promise<SyncWorld> {
  const net = await startFakeInternet();
  const google = await startFakeGoogle();
  const hubspot = await startFakeHubSpot();
  const serviceEnv: Record<string, string> = {
    ...UNLIMITED_RATE_ENV,
    ...net.env,
    DOMAIN_INTEL: "false",
    ALLOW_PRIVATE_TARGETS: "true",
    LEADCHECK_SECRET_KEY: "test-secret-key-for-connection-credentials",
    GOOGLE_SHEETS_API_URL: google.sheetsUrl,
    GOOGLE_OAUTH_TOKEN_URL: google.tokenUrl,
    HUBSPOT_API_URL: hubspot.url,
    INTEGRATION_RETRY_BASE_DELAY_MS: "10",
    INTEGRATION_RETRY_MAX_DELAY_MS: "100",
    SYNC_POLL_INTERVAL_MS: "50",
    ...env,
  };
  const h = await startHarness(kind, serviceEnv, { websiteCa: net.ca, workers: options.workers ?? true });
  return {
    h,
    net,
    google,
    hubspot,
    env: serviceEnv,
    async close() {
      await h.close();
      await Promise.all([net.close(), google.close(), hubspot.close()]);
    },
  };
}

/** Polls the sync until it is no longer running. */
export async function finishedSync(h: Harness, key: string, syncId: string, timeoutMs = 60_000) {
  return waitFor(
    async () => {
      const res = await h.call(key, "GET", `/v1/syncs/${syncId}`);
      const body = res.json();
      return body.status === "running" ? undefined : body;
    },
    `sync ${syncId} to finish`,
    timeoutMs,
    50,
  );
}
