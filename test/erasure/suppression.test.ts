// "Do not re-import" (issue 25) through the real service on both dialects: once an account turns
// suppress_erased_emails on, an erased address (or another alias of its mailbox) does not come
// back through a single create, an update, a bulk create, a CSV import or a sync; with the setting
// off it may. Single writes are 409 EMAIL_SUPPRESSED; many-item paths skip it with the reason.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

const ACCOUNT = "acct_suppress";

for (const kind of dialects()) {
  describe(`suppression of erased addresses (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let key: string;
    before(async () => {
      if (skip) return;
      h = await startHarness(kind, { ...UNLIMITED_RATE_ENV, NEW_ACCOUNT_MILLI_CREDITS: "100000" });
      key = await h.apiKey(ACCOUNT);
    });
    after(async () => h?.close());

    const create = (email: string) => h.call(key, "POST", "/v1/leads", { email, validate: false });
    const erase = async (email: string) => {
      const created = await create(email);
      assert.equal(created.statusCode, 201, created.body);
      const erased = await h.call(key, "POST", `/v1/leads/${created.json().id}/erase`);
      assert.equal(erased.statusCode, 200, erased.body);
    };
    const suppress = async (on: boolean) => {
      const res = await h.call(key, "PUT", "/v1/settings/retention", { suppress_erased_emails: on });
      assert.equal(res.statusCode, 200, res.body);
    };

    it("lets an erased address come back while the setting is off", { skip }, async () => {
      await erase("again@acme.test");
      const back = await create("again@acme.test");
      assert.equal(back.statusCode, 201, back.body);
    });

    it("refuses an erased address (and its aliases) on create and update with 409 EMAIL_SUPPRESSED", {
      skip,
    }, async () => {
      await erase("J.Doe+crm@gmail.com");
      await suppress(true);
      for (const email of ["J.Doe+crm@gmail.com", "jdoe@gmail.com", "JDOE@GMAIL.COM"]) {
        const res = await create(email);
        assert.equal(res.statusCode, 409, `${email}: ${res.body}`);
        assert.equal(res.json().error_code, "EMAIL_SUPPRESSED");
        assert.equal(res.json().details.setting, "suppress_erased_emails");
      }
      const other = await create("someone.else@acme.test");
      assert.equal(other.statusCode, 201);
      const renamed = await h.call(key, "PUT", `/v1/leads/${other.json().id}`, { email: "j.doe@gmail.com" });
      assert.equal(renamed.statusCode, 409, renamed.body);
      assert.equal(renamed.json().error_code, "EMAIL_SUPPRESSED");
      // Another account never erased it: nothing is refused there.
      const stranger = await h.apiKey("acct_suppress_other");
      const elsewhere = await h.call(stranger, "POST", "/v1/leads", {
        email: "jdoe@gmail.com",
        validate: false,
      });
      assert.equal(elsewhere.statusCode, 201, elsewhere.body);
    });

    it("skips erased addresses in bulk creates and CSV imports, with the reason", { skip }, async () => {
      const bulk = await h.call(key, "POST", "/v1/leads/bulk", {
        validate: false,
        leads: [{ email: "fresh.one@acme.test" }, { email: "jdoe+newsletter@gmail.com" }],
      });
      assert.equal(bulk.statusCode, 200, bulk.body);
      assert.equal(bulk.json().created, 1);
      assert.equal(bulk.json().failed, 1);
      assert.equal(bulk.json().errors[0].index, 1);
      assert.match(bulk.json().errors[0].error, /^suppressed:/);

      const csv =
        "email,firstName\nfresh.two@acme.test,Ann\nj.doe@gmail.com,John\nfresh.three@acme.test,Bo\n";
      const imported = await h.app.inject({
        method: "POST",
        url: "/v1/leads/import?validate=false",
        headers: { "x-api-key": key, "content-type": "text/csv" },
        payload: csv,
      });
      assert.equal(imported.statusCode, 200, imported.body);
      assert.equal(imported.json().created, 2);
      assert.deepEqual(imported.json().suppressed, [{ line: 3, email: "j.doe@gmail.com" }]);
      const listed = (await h.call(key, "GET", "/v1/leads?search=gmail")).json().leads;
      assert.deepEqual(listed, []);
    });

    it("skips erased addresses in a sync's import with the reason", { skip }, async () => {
      const result = await h.services.leads.importSynced(
        ACCOUNT,
        [
          { input: { email: "synced.new@acme.test" }, externalId: "c1" },
          { input: { email: "jdoe@gmail.com" }, externalId: "c2" },
        ],
        "hubspot",
      );
      assert.equal("leadId" in result.items[0]! && result.items[0].outcome, "created");
      const skipped = result.items[1]!;
      assert.ok("error" in skipped && skipped.error.startsWith("suppressed:"), JSON.stringify(skipped));
    });

    it("takes the address back once the setting is off again", { skip }, async () => {
      await suppress(false);
      const back = await create("jdoe@gmail.com");
      assert.equal(back.statusCode, 201, back.body);
    });
  });
}
