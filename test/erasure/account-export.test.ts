// The account export on both dialects: a job builds one gzipped JSONL of the account's data
// (no secrets, nothing of other accounts), downloadable with its token for 24 hours, audited.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import type { Clock } from "../../src/lib/clock.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { waitFor } from "../support/wait-for.js";

for (const kind of dialects()) {
  describe(`account export (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let apiKey: string;
    let offsetMs = 0;
    const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
    before(async () => {
      if (skip) return;
      h = await startHarness(
        kind,
        { ...UNLIMITED_RATE_ENV, JOB_POLL_INTERVAL_MS: "20", NEW_ACCOUNT_MILLI_CREDITS: "100000" },
        { clock, workers: true },
      );
      apiKey = await h.apiKey("acct_export");
    });
    after(async () => h?.close());

    it("builds an archive of the account's data without secrets, linked by token for 24 hours", {
      skip,
    }, async () => {
      await h.call(apiKey, "POST", "/v1/leads", { email: "mine@acme.test", validate: false });
      const otherKey = await h.apiKey("acct_export_other");
      await h.call(otherKey, "POST", "/v1/leads", { email: "theirs@acme.test", validate: false });
      const started = await h.call(apiKey, "POST", "/v1/account/export");
      assert.equal(started.statusCode, 202, started.body);
      const { export_id: exportId, token, download_url: url } = started.json();
      await waitFor(async () => {
        const status = (await h.call(apiKey, "GET", `/v1/account/export/${exportId}`)).json().status;
        return status === "ready" ? status : undefined;
      }, "the export to be ready");

      const wrong = await h.app.inject({ url: `/v1/account/export/${exportId}/download?token=lcx_wrong` });
      assert.equal(wrong.statusCode, 404);
      const res = await h.app.inject({ url });
      assert.equal(res.statusCode, 200, res.body);
      const lines = gunzipSync(res.rawPayload)
        .toString()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      const resources = new Set(lines.map((line) => line.resource));
      for (const resource of ["leads", "api_keys", "credit_ledger", "audit_entries"])
        assert.ok(resources.has(resource), resource);
      const text = JSON.stringify(lines);
      assert.ok(text.includes("mine@acme.test"));
      assert.equal(text.includes("theirs@acme.test"), false);
      assert.equal(text.includes(apiKey), false);
      assert.equal(
        lines.some((line) => line.resource === "api_keys" && "key_hash" in line.data),
        false,
      );
      assert.equal(text.includes(token), false);

      const log = await h.call(apiKey, "GET", "/v1/audit-log?action=account.exported");
      assert.equal(log.json().entries[0].target.id, exportId);

      offsetMs = 24 * 3_600_000 + 1000;
      const late = await h.app.inject({ url });
      assert.equal(late.statusCode, 404);
      assert.equal(late.json().details.reason, "expired");
      offsetMs = 0;
    });

    it("shows another account's export as 404", { skip }, async () => {
      const started = await h.call(apiKey, "POST", "/v1/account/export");
      const otherKey = await h.apiKey("acct_export_third");
      const peek = await h.call(otherKey, "GET", `/v1/account/export/${started.json().export_id}`);
      assert.equal(peek.statusCode, 404);
    });
  });
}
