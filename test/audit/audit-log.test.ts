// The audit log through the real service on both dialects: sensitive actions leave entries with
// their actor, the chain verifies, an edited or removed row is named by verification, concurrent
// appends keep one gapless chain, entries never hold secrets, and the CSV export is neutralised.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, TEST_ADMIN_TOKEN, UNLIMITED_RATE_ENV } from "../support/harness.js";

interface Entry {
  id: string;
  seq: number;
  actor: { kind: string; id: string };
  action: string;
  target: { kind: string; id: string };
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

for (const kind of dialects()) {
  describe(`audit log (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    before(async () => {
      if (!skip) h = await startHarness(kind, { ...UNLIMITED_RATE_ENV, ALLOW_PRIVATE_TARGETS: "true" });
    });
    after(async () => h?.close());

    const asMember = async (accountId: string) => ({
      authorization: `Bearer ${await h.token(accountId)}`,
      "user-agent": "audit-test/1",
    });
    const entriesOf = async (accountId: string, query = ""): Promise<Entry[]> => {
      const res = await h.app.inject({ url: `/v1/audit-log${query}`, headers: await asMember(accountId) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().entries;
    };

    it("records key, webhook and credit actions with their actor, target and client, and no secrets", {
      skip,
    }, async () => {
      const account = "acct_audit_actions";
      const created = await h.app.inject({
        method: "POST",
        url: "/v1/auth/keys",
        headers: await asMember(account),
        payload: { name: "ci" },
      });
      const { api_key: apiKey, key_id: keyId } = created.json();
      const hook = await h.app.inject({
        method: "POST",
        url: "/v1/webhooks",
        headers: { "x-api-key": apiKey },
        payload: { name: "crm", url: "http://127.0.0.1:9/hook", events: ["lead.created"] },
      });
      assert.equal(hook.statusCode, 201, hook.body);
      const { webhook_id: webhookId, secret } = hook.json();
      const rotated = await h.call(apiKey, "POST", `/v1/webhooks/${webhookId}/rotate-secret`);
      await h.call(apiKey, "PATCH", `/v1/webhooks/${webhookId}`, { name: "crm2" });
      await h.call(apiKey, "DELETE", `/v1/webhooks/${webhookId}`);
      const grant = await h.app.inject({
        method: "POST",
        url: `/v1/admin/accounts/${account}/credits`,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { credits: 5, reason: "welcome" },
      });
      assert.equal(grant.statusCode, 200, grant.body);
      await h.app.inject({
        method: "DELETE",
        url: `/v1/auth/keys/${keyId}`,
        headers: await asMember(account),
      });

      const entries = await entriesOf(account);
      assert.deepEqual(entries.map((e) => [e.action, e.actor.kind, e.target.id]).reverse(), [
        ["key.created", "member", keyId],
        ["webhook.created", "key", webhookId],
        ["webhook.secret_rotated", "key", webhookId],
        ["webhook.updated", "key", webhookId],
        ["webhook.deleted", "key", webhookId],
        ["credits.granted", "admin", account],
        ["key.revoked", "member", keyId],
      ]);
      assert.equal(entries.at(-1)?.user_agent, "audit-test/1");
      assert.equal(entries.at(-1)?.ip, "127.0.0.1");
      const stored = await h.services.database.db.selectFrom("audit_entries").selectAll().execute();
      const text = JSON.stringify(stored);
      for (const secretValue of [apiKey, secret, rotated.json().secret]) {
        assert.equal(text.includes(secretValue), false, "an audit row holds a secret");
      }
    });

    it("filters by action, actor, target and time, and pages by cursor without overlap", {
      skip,
    }, async () => {
      const account = "acct_audit_pages";
      for (let i = 0; i < 7; i++) {
        await h.services.audit.recordAlone(account, {
          actor: { kind: "system", id: i % 2 ? "odd" : "even" },
          action: i < 5 ? "test.first" : "test.second",
          target: { kind: "thing", id: `t${i}` },
        });
      }
      assert.equal((await entriesOf(account, "?action=test.second")).length, 2);
      assert.equal((await entriesOf(account, "?actor=odd")).length, 3);
      assert.deepEqual(
        (await entriesOf(account, "?target=t4")).map((e) => e.seq),
        [5],
      );
      assert.equal((await entriesOf(account, "?to=2000-01-01T00:00:00Z")).length, 0);
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const res = await h.app.inject({
          url: `/v1/audit-log?limit=3${cursor ? `&cursor=${cursor}` : ""}`,
          headers: await asMember(account),
        });
        const page: { entries: Entry[]; next_cursor: string | null } = res.json();
        seen.push(...page.entries.map((e) => e.seq));
        cursor = page.next_cursor;
      } while (cursor);
      assert.deepEqual(seen, [7, 6, 5, 4, 3, 2, 1]);
      const bad = await h.app.inject({
        url: "/v1/audit-log?cursor=nonsense",
        headers: await asMember(account),
      });
      assert.equal(bad.statusCode, 400);
    });

    it("verifies the chain, and names the first entry whose row was edited in the database", {
      skip,
    }, async () => {
      const account = "acct_audit_tamper";
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(
          await h.services.audit.recordAlone(account, {
            actor: { kind: "system", id: "test" },
            action: "test.entry",
            target: { kind: "thing", id: `t${i}` },
            details: { n: i },
          }),
        );
      }
      const verify = async () =>
        (await h.app.inject({ url: "/v1/audit-log/verify", headers: await asMember(account) })).json();
      assert.deepEqual(await verify(), { valid: true, checked: 5, head_seq: 5, first_broken: null });

      const { db } = h.services.database;
      await db.updateTable("audit_entries").set({ details: '{"n":99}' }).where("id", "=", ids[2]!).execute();
      const edited = await verify();
      assert.equal(edited.valid, false);
      assert.equal(edited.first_broken.id, ids[2]);
      assert.equal(edited.first_broken.seq, 3);

      // Recomputing the edited row's own hash does not help: the next entry no longer links to it.
      const row = await db
        .selectFrom("audit_entries")
        .selectAll()
        .where("id", "=", ids[2]!)
        .executeTakeFirstOrThrow();
      const { entryHash } = await import("../../src/audit/audit-hash.js");
      await db
        .updateTable("audit_entries")
        .set({ hash: entryHash({ ...row, seq: Number(row.seq) }) })
        .where("id", "=", ids[2]!)
        .execute();
      const rehashed = await verify();
      assert.equal(rehashed.first_broken.id, ids[3]);

      await db.deleteFrom("audit_entries").where("id", "=", ids[3]!).execute();
      assert.equal((await verify()).first_broken.seq, 5);
      await sql`delete from audit_entries where id = ${ids[4]!}`.execute(db);
      const truncated = await verify();
      assert.equal(truncated.valid, false);
      assert.deepEqual(truncated.first_broken, {
        id: null,
        seq: 4,
        reason: "entries after this point are missing",
      });
    });

    it("keeps one gapless chain under 40 concurrent appends to one account", { skip }, async () => {
      const account = "acct_audit_race";
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          h.services.audit.recordAlone(account, {
            actor: { kind: "system", id: "race" },
            action: "test.race",
            target: { kind: "thing", id: `t${i}` },
          }),
        ),
      );
      const rows = await h.services.database.db
        .selectFrom("audit_entries")
        .select("seq")
        .where("account_id", "=", account)
        .orderBy("seq")
        .execute();
      assert.deepEqual(
        rows.map((r) => Number(r.seq)),
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      const res = await h.app.inject({ url: "/v1/audit-log/verify", headers: await asMember(account) });
      assert.equal(res.json().valid, true);
    });

    it("exports CSV whose formula-like cells start with a single quote", { skip }, async () => {
      const account = "acct_audit_csv";
      await h.app.inject({
        method: "POST",
        url: "/v1/auth/keys",
        headers: await asMember(account),
        payload: { name: '=HYPERLINK("http://x")' },
      });
      const res = await h.app.inject({ url: "/v1/audit-log/export", headers: await asMember(account) });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers["content-type"]), /^text\/csv/);
      const lines = res.body.trim().split("\r\n");
      assert.equal(lines.length, 2);
      assert.match(lines[0]!, /^id,seq,created_at,actor_kind/);
      assert.match(lines[1]!, /key\.created/);
      // The name sits inside the details cell, which starts with "{": no cell starts with "=".
      assert.match(lines[1]!, /,"\{.*""name"":""=HYPERLINK/, lines[1]);
      assert.doesNotMatch(lines[1]!, /(^|,)"?=/);
    });

    it("shows another account nothing", { skip }, async () => {
      assert.deepEqual(await entriesOf("acct_audit_nobody"), []);
    });
  });
}
