// The three import paths behave one way (docs/decisions/0016-imports-and-payments.md): all lines
// or none, bad lines named `line N`, pasted lists split on lines and commas only.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

for (const kind of dialects()) {
  describe(`imports of pasted lists (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let key = "";
    const post = (url: string, payload: unknown) =>
      h.app.inject({ method: "POST", url, headers: { "x-api-key": key }, payload: payload as object });
    const balance = async () =>
      (await h.app.inject({ method: "GET", url: "/v1/credits", headers: { "x-api-key": key } })).json()
        .displayCredits as number;
    const leadCount = async () =>
      (await h.app.inject({ method: "GET", url: "/v1/leads?limit=1", headers: { "x-api-key": key } })).json()
        .total as number;

    before(async () => {
      if (skip) return;
      h = await startHarness(kind, UNLIMITED_RATE_ENV);
      key = await h.apiKey("acct_imports");
    });
    after(async () => h?.close());

    it("imports a pasted email list split on lines and commas, as manual leads", { skip }, async () => {
      const before = await balance();
      const res = await post("/v1/leads/import/emails", {
        text: "ann@example.test\n\nben@example.test, cat@example.test\r\n",
        validate: false,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().created, 3);
      assert.equal(res.json().batchId, null);
      assert.equal(await balance(), before, "no validation, no charge");
      const lead = await h.app.inject({
        method: "GET",
        url: `/v1/leads/${res.json().leadIds[2]}`,
        headers: { "x-api-key": key },
      });
      assert.equal(lead.json().email, "cat@example.test");
      assert.equal(lead.json().source, "manual");
    });

    it("refuses a pasted email list with bad lines by line number, creating and charging nothing", {
      skip,
    }, async () => {
      const [leadsBefore, creditsBefore] = [await leadCount(), await balance()];
      const res = await post("/v1/leads/import/emails", {
        text: "good@example.test\njo smith@example.test\nok@example.test, not-an-email\nann@example.test",
      });
      assert.equal(res.statusCode, 422, res.body);
      const errors = res.json().details.errors as { field: string; message: string }[];
      assert.deepEqual(
        errors.map((e) => e.field),
        ["line 2", "line 3", "line 4"],
      );
      assert.match(
        errors[0]!.message,
        /^jo smith@example\.test: /,
        "a space inside a line is not a separator",
      );
      assert.match(errors[1]!.message, /^not-an-email: /);
      assert.match(errors[2]!.message, /already exists/);
      assert.match(res.json().message, /3 bad line\(s\); nothing was imported/);
      assert.equal(await leadCount(), leadsBefore);
      assert.equal(await balance(), creditsBefore);
    });

    it("refuses a pasted domain list with bad lines by line number, starting no batch", {
      skip,
    }, async () => {
      const creditsBefore = await balance();
      const res = await post("/v1/batches/import/domains", {
        text: "example.test\nexample .test\nok.test, http://\n",
      });
      assert.equal(res.statusCode, 422, res.body);
      const fields = (res.json().details.errors as { field: string }[]).map((e) => e.field);
      assert.deepEqual(fields, ["line 2", "line 3"]);
      assert.match(res.json().details.errors[0].message, /^example \.test: /);
      assert.equal(await balance(), creditsBefore);
    });

    it("starts a domain batch from a pasted list, charged per domain", { skip }, async () => {
      const creditsBefore = await balance();
      const res = await post("/v1/batches/import/domains", {
        text: "a.example.test, b.example.test\nc.example.test",
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().totalLeads ?? res.json().total ?? 3, 3);
      assert.match(res.json().batchId, /^batch_/);
      assert.equal(await balance(), creditsBefore - 3);
    });

    it("refuses an empty list with 422 on both paths", { skip }, async () => {
      for (const url of ["/v1/leads/import/emails", "/v1/batches/import/domains"]) {
        const res = await post(url, { text: " ,\n , " });
        assert.equal(res.statusCode, 422, url);
        assert.equal(res.json().details.errors[0].field, "text");
      }
    });
  });
}
