// Retention on both dialects with a mocked clock: the purge removes exactly what is past each
// setting's age (archived leads, batch item details, delivery bodies, audit entries), in bounded
// chunks, writes an audit entry with its counts, and settings changes are validated and audited.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Clock } from "../../src/lib/clock.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

const DAY = 86_400_000;

for (const kind of dialects()) {
  describe(`retention (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let apiKey: string;
    let nowMs = Date.parse("2026-06-01T00:00:00Z");
    const clock: Clock = { now: () => new Date(nowMs) };
    const account = "acct_retention";
    before(async () => {
      if (skip) return;
      h = await startHarness(
        kind,
        { ...UNLIMITED_RATE_ENV, RETENTION_PURGE_CHUNK: "2", NEW_ACCOUNT_MILLI_CREDITS: "100000" },
        { clock },
      );
      apiKey = await h.apiKey(account);
    });
    after(async () => h?.close());

    it("refuses bad settings with a 422 and audits a change", { skip }, async () => {
      const defaults = await h.call(apiKey, "GET", "/v1/settings/retention");
      assert.deepEqual(defaults.json(), {
        archived_leads_days: 0,
        batch_item_details_days: 0,
        webhook_delivery_bodies_days: 30,
        audit_entries_days: 365,
        suppress_erased_emails: false,
      });
      for (const body of [{}, { audit_entries_days: -1 }, { archived_leads_days: "7" }, { nonsense: 1 }]) {
        const res = await h.call(apiKey, "PUT", "/v1/settings/retention", body);
        assert.equal(res.statusCode, 422, JSON.stringify(body));
      }
      const set = await h.call(apiKey, "PUT", "/v1/settings/retention", {
        archived_leads_days: 30,
        batch_item_details_days: 30,
        webhook_delivery_bodies_days: 30,
        audit_entries_days: 30,
      });
      assert.equal(set.statusCode, 200, set.body);
      assert.equal(set.json().archived_leads_days, 30);
      const log = await h.call(apiKey, "GET", "/v1/audit-log?action=retention.changed");
      assert.equal(log.json().entries.length, 1);
      assert.equal(log.json().entries[0].details.after.audit_entries_days, 30);
    });

    it("purges exactly what is past its age, in chunks, and records the counts", { skip }, async () => {
      const { db } = h.services.database;
      const start = nowMs;
      const at = (daysAgo: number) => new Date(start - daysAgo * DAY).toISOString();
      // 5 archived 31 days ago (more than two chunks), 1 archived 29 days ago, 1 live lead.
      const leadIds: string[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await h.call(apiKey, "POST", "/v1/leads", { email: `person${i}@acme.test` });
        assert.equal(res.statusCode, 201, res.body);
        leadIds.push(res.json().id);
      }
      for (const [i, id] of leadIds.entries()) {
        if (i === 6) continue;
        await db
          .updateTable("leads")
          .set({ archived_at: at(i === 5 ? 29 : 31) })
          .where("id", "=", id)
          .execute();
      }
      await db
        .insertInto("batches")
        .values({
          id: "batch_ret",
          account_id: account,
          kind: "domain_check",
          status: "completed",
          total: 3,
          completed: 3,
          valid: 3,
          invalid: 0,
          failed: 0,
          progress_quarter: 0,
          webhook_url: null,
          source: null,
          created_at: at(40),
          started_at: at(40),
          completed_at: at(29),
        })
        .execute();
      for (const [seq, daysAgo] of [31, 31, 29].entries()) {
        await db
          .insertInto("batch_items")
          .values({
            id: `item_ret_${seq}`,
            batch_id: "batch_ret",
            account_id: account,
            seq,
            lead_id: null,
            input: `site${seq}.test`,
            group_key: `site${seq}.test`,
            status: "done",
            verdict: "active",
            result: '{"status":"active"}',
            error: null,
            completed_at: at(daysAgo),
          })
          .execute();
      }
      await db
        .insertInto("webhooks")
        .values({
          id: "wh_ret",
          account_id: account,
          name: "crm",
          url: "http://127.0.0.1:9/",
          description: null,
          events: "[]",
          active: 1,
          secret: "whsec_x",
          max_retries: 0,
          retry_delays: "[]",
          total_attempts: 0,
          successful_deliveries: 0,
          failed_deliveries: 0,
          last_delivery_at: null,
          last_success_at: null,
          secret_rotated_at: null,
          created_at: at(40),
          updated_at: at(40),
        })
        .execute();
      for (const [i, daysAgo] of [31, 29].entries()) {
        await db
          .insertInto("webhook_deliveries")
          .values({
            id: `dlv_ret_${i}`,
            webhook_id: "wh_ret",
            account_id: account,
            event_id: `evt_ret_${i}`,
            event: "lead.created",
            url: "http://127.0.0.1:9/",
            payload: '{"data":{"email":"x@acme.test"}}',
            status: "success",
            http_status: 200,
            response_body: "thanks",
            error_message: null,
            attempts: 1,
            attempt_log: "[]",
            is_test: 0,
            redelivery_of: null,
            next_attempt_at: null,
            delivered_at: at(daysAgo),
            created_at: at(daysAgo),
            updated_at: at(daysAgo),
          })
          .execute();
      }
      // An account whose audit log started 31 days ago: 3 entries then, 1 entry 29 days ago.
      const auditAccount = "acct_retention_audit";
      const entry = (action: string, id: string) => ({
        actor: { kind: "system" as const, id: "t" },
        action,
        target: { kind: "x", id },
      });
      nowMs = start - 31 * DAY;
      for (let i = 0; i < 3; i++) await h.services.audit.recordAlone(auditAccount, entry("test.old", `${i}`));
      nowMs = start - 29 * DAY;
      await h.services.audit.recordAlone(auditAccount, entry("test.recent", "r"));
      nowMs = start;
      await h.services.retention.update(
        auditAccount,
        { audit_entries_days: 30 },
        { kind: "system", id: "t" },
      );

      const counts = await h.services.retention.purgeAccount(account);
      assert.deepEqual(counts, {
        archived_leads: 5,
        batch_item_details: 2,
        webhook_delivery_bodies: 1,
        audit_entries: 0,
      });
      const bodies = await db
        .selectFrom("webhook_deliveries")
        .select(["payload", "response_body"])
        .where("webhook_id", "=", "wh_ret")
        .orderBy("id")
        .execute();
      assert.deepEqual(bodies, [
        { payload: "{}", response_body: null },
        { payload: '{"data":{"email":"x@acme.test"}}', response_body: "thanks" },
      ]);
      const auditCounts = await h.services.retention.purgeAccount(auditAccount);
      assert.deepEqual(auditCounts, {
        archived_leads: 0,
        batch_item_details: 0,
        webhook_delivery_bodies: 0,
        audit_entries: 3,
      });

      const leftLeads = await db
        .selectFrom("leads")
        .select("id")
        .where("account_id", "=", account)
        .orderBy("id")
        .execute();
      assert.deepEqual(
        leftLeads.map((row) => row.id),
        [leadIds[5], leadIds[6]],
      );
      const items = await db
        .selectFrom("batch_items")
        .select(["id", "input", "result", "status"])
        .where("batch_id", "=", "batch_ret")
        .orderBy("seq")
        .execute();
      assert.deepEqual(
        items.map((item) => [item.input, item.result, item.status]),
        [
          ["[purged]", null, "done"],
          ["[purged]", null, "done"],
          ["site2.test", '{"status":"active"}', "done"],
        ],
      );
      const purged = await h.call(apiKey, "GET", "/v1/audit-log?action=retention.purged");
      assert.deepEqual(purged.json().entries[0].details.counts, counts);
      const remaining = await h.services.audit.list(auditAccount, {}, { limit: 50 });
      assert.ok(remaining.kind === "listed");
      assert.deepEqual(
        remaining.entries.map((e) => e.action),
        ["retention.purged", "retention.changed", "test.recent"],
      );
      assert.deepEqual(await h.services.audit.verify(auditAccount), {
        valid: true,
        checked: 3,
        head_seq: 6,
        first_broken: null,
      });

      // A second run finds nothing more, and writes no entry.
      assert.deepEqual(await h.services.retention.purgeAccount(account), {
        archived_leads: 0,
        batch_item_details: 0,
        webhook_delivery_bodies: 0,
        audit_entries: 0,
      });
    });
  });
}
