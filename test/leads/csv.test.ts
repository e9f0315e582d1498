import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parse } from "csv-parse/sync";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness } from "../support/harness.js";

for (const kind of dialects()) {
  describe(`CSV import and export (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let key = "";
    const importCsv = (csv: string, query = "?validate=false") =>
      h.app.inject({
        method: "POST",
        url: `/v1/leads/import${query}`,
        headers: { "x-api-key": key, "content-type": "text/csv" },
        payload: csv,
      });
    const count = async () =>
      (await h.app.inject({ method: "GET", url: "/v1/leads?limit=1", headers: { "x-api-key": key } })).json()
        .total;

    before(async () => {
      if (skip) return;
      h = await startHarness(kind, { RATE_LIMIT_PER_MINUTE: "100000", RATE_LIMIT_PER_HOUR: "100000" });
      key = await h.apiKey("acct_csv");
    });
    after(async () => h?.close());

    it("maps the header row to lead fields and unknown columns to customFields", { skip }, async () => {
      const csv = [
        "Email,First Name,Last Name,Company,Website,Tags,Favorite Color",
        "ann@example.test,Ann,Lee,Example Co,example.test,vip;q3,blue",
        '"ben@example.test",Ben,,"Comma, Inc",,,',
      ].join("\n");
      const res = await importCsv(csv);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().created, 2);
      assert.equal(res.json().batchId, null);
      const lead = (
        await h.app.inject({
          method: "GET",
          url: `/v1/leads/${res.json().leadIds[0]}`,
          headers: { "x-api-key": key },
        })
      ).json();
      assert.equal(lead.firstName, "Ann");
      assert.equal(lead.website, "https://example.test/");
      assert.deepEqual(lead.tags, ["vip", "q3"]);
      assert.deepEqual(lead.customFields, { "Favorite Color": "blue" });
      assert.equal(lead.source, "csv");
    });

    it("refuses a file with bad rows by line number and creates nothing", { skip }, async () => {
      const before = await count();
      const csv = [
        "email,company",
        "good@example.test,A",
        "not-an-email,B",
        "ann@example.test,dup of an existing lead",
      ].join("\n");
      const res = await importCsv(csv);
      assert.equal(res.statusCode, 422);
      const fields = res.json().details.errors.map((e: { field: string }) => e.field);
      assert.deepEqual(fields, ["line 3", "line 4"]);
      assert.equal(await count(), before);
      const malformed = await importCsv('email,company\n"unterminated@example.test,A\n');
      assert.equal(malformed.statusCode, 422);
      const noEmail = await importCsv("name,company\nx,y\n");
      assert.equal(noEmail.statusCode, 422);
      assert.match(noEmail.json().details.errors[0].message, /no email column/);
      assert.equal(await count(), before);
    });

    it("accepts a multipart upload and charges validation upfront", { skip }, async () => {
      const boundary = "----leadcheck";
      const body = [
        `--${boundary}`,
        'Content-Disposition: form-data; name="file"; filename="leads.csv"',
        "Content-Type: text/csv",
        "",
        "email\ncara@example.test\ndan@example.test",
        `--${boundary}--`,
        "",
      ].join("\r\n");
      const credits = async () =>
        (await h.app.inject({ method: "GET", url: "/v1/credits", headers: { "x-api-key": key } })).json()
          .displayCredits;
      const before = await credits();
      const res = await h.app.inject({
        method: "POST",
        url: "/v1/leads/import",
        headers: { "x-api-key": key, "content-type": `multipart/form-data; boundary=${boundary}` },
        payload: body,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().created, 2);
      assert.match(res.json().batchId, /^batch_/);
      assert.equal(await credits(), before - 4);
    });

    it("writes booleans as true and false in the export, and an empty cell only for null", {
      skip,
    }, async () => {
      const imported = await importCsv("email\nyes@example.test\nno@example.test\n");
      const [yes, no] = imported.json().leadIds as string[];
      const { db } = h.services.database;
      await db
        .updateTable("leads")
        .set({ email_valid: 1, domain_ssl_valid: 0 })
        .where("id", "=", yes!)
        .execute();
      await db.updateTable("leads").set({ email_valid: 0, domain_parked: 1 }).where("id", "=", no!).execute();
      const res = await h.app.inject({
        method: "GET",
        url: "/v1/leads/export",
        headers: { "x-api-key": key },
      });
      const rows = parse(res.body, { columns: true }) as Record<string, string>[];
      const row = (email: string) => rows.find((r) => r.email === email)!;
      assert.deepEqual(
        [
          row("yes@example.test").emailValid,
          row("yes@example.test").domainSslValid,
          row("yes@example.test").domainParked,
        ],
        ["true", "false", ""],
      );
      assert.deepEqual(
        [row("no@example.test").emailValid, row("no@example.test").domainParked],
        ["false", "true"],
      );
    });

    it("refuses a JSON body on the import route with 415", { skip }, async () => {
      const res = await h.app.inject({
        method: "POST",
        url: "/v1/leads/import",
        headers: { "x-api-key": key },
        payload: { email: "x@example.test" },
      });
      assert.equal(res.statusCode, 415);
    });

    it("exports the account's leads with their ratings as CSV", { skip }, async () => {
      const res = await h.app.inject({
        method: "GET",
        url: "/v1/leads/export?format=csv",
        headers: { "x-api-key": key },
      });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers["content-type"]), /^text\/csv/);
      assert.match(String(res.headers["content-disposition"]), /attachment; filename="leads-/);
      const rows = parse(res.body, { columns: true }) as Record<string, string>[];
      assert.equal(rows.length, await count());
      const ann = rows.find((r) => r.email === "ann@example.test")!;
      assert.equal(ann.company, "Example Co");
      assert.equal(ann.leadDeliverabilityRating, "0");
      assert.equal(ann.validationStatus, "new");
      assert.equal(ann["Favorite Color"], "blue", "a custom field is a column of its own");
      assert.equal(ann.emailValid, "", "never validated: empty, not false");
      const bad = await h.app.inject({
        method: "GET",
        url: "/v1/leads/export?format=xml",
        headers: { "x-api-key": key },
      });
      assert.equal(bad.statusCode, 422);
    });
  });
}
