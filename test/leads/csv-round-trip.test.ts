// CSV that is safe and round-trips (ADR 0021), on both databases: an export opens in a
// spreadsheet without running formulas, re-imports to the same leads, follows the list's filters;
// imports read Latin-1, UTF-16 and semicolon files, and name a parse error's real line.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parse } from "csv-parse/sync";
import iconv from "iconv-lite";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

/** The fields a user gives a lead: what a round trip must keep. */
const USER_FIELDS = [
  "email",
  "website",
  "firstName",
  "lastName",
  "company",
  "title",
  "phone",
  "linkedIn",
  "twitter",
  "leadServiceCategory",
  "leadServiceSubcategory",
  "campaign",
  "tags",
  "notes",
  "priority",
  "status",
  "customFields",
] as const;

const userFieldsOf = (lead: Record<string, unknown>) =>
  Object.fromEntries(USER_FIELDS.map((f) => [f, lead[f]]));

const LEADS = [
  {
    email: "anna.mueller@acme.test",
    website: "acme.test",
    firstName: "Anna",
    lastName: "Müller",
    company: '=HYPERLINK("http://evil.test","click")',
    title: "-Head of Sales",
    phone: "+49 30 1234567",
    linkedIn: "https://linkedin.test/in/anna",
    twitter: "@anna",
    leadServiceCategory: "SaaS",
    leadServiceSubcategory: "CRM",
    campaign: "@q3",
    tags: ["vip", "=sum"],
    notes: 'Met at fair, "keen".\nCall back\ton Monday.',
    priority: "high",
    status: false,
    customFields: {
      "Favorite Color": "blue",
      status: "hot",
      Company: "their own column name",
      "=cmd": "-1",
      quote: "'+already quoted",
    },
    validate: false,
  },
  {
    email: "ben@example.test",
    firstName: "Ben",
    company: "Comma, Inc",
    priority: "low",
    customFields: { "Favorite Color": "green" },
    validate: false,
  },
  { email: "cleo@example.test", validate: false },
];

for (const kind of dialects()) {
  describe(`CSV round trip and encodings (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let key = "";
    let otherKey = "";
    const get = (apiKey: string, url: string) => h.call(apiKey, "GET", url);
    const importCsv = (apiKey: string, body: Buffer | string, contentType = "text/csv") =>
      h.app.inject({
        method: "POST",
        url: "/v1/leads/import?validate=false",
        headers: { "x-api-key": apiKey, "content-type": contentType },
        payload: body,
      });
    const upload = (apiKey: string, bytes: Buffer) => {
      const boundary = "----leadcheck-round-trip";
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="leads.csv"\r\nContent-Type: text/csv\r\n\r\n`,
        ),
        bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      return importCsv(apiKey, body, `multipart/form-data; boundary=${boundary}`);
    };
    const leadsOf = async (apiKey: string) =>
      (await get(apiKey, "/v1/leads?limit=100")).json().leads as Record<string, unknown>[];

    before(async () => {
      if (skip) return;
      h = await startHarness(kind, UNLIMITED_RATE_ENV);
      key = await h.apiKey("acct_csv_trip");
      otherKey = await h.apiKey("acct_csv_trip_again");
      for (const lead of LEADS) {
        const res = await h.call(key, "POST", "/v1/leads", lead);
        assert.equal(res.statusCode, 201, res.body);
      }
    });
    after(() => h?.close());

    it("writes no cell a spreadsheet would run as a formula, and drops NULs", { skip }, async () => {
      if (kind === "sqlite") {
        // Only SQLite can hold a NUL (stored before this round's request check).
        await h.services.database.db
          .updateTable("leads")
          .set({ title: "Chief\u0000Officer" })
          .where("email", "=", "cleo@example.test")
          .execute();
      }
      const res = await get(key, "/v1/leads/export");
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.body.includes("\u0000"), false, "no NUL in the file");
      const cells = (parse(res.body) as string[][]).flat();
      for (const cell of cells)
        assert.doesNotMatch(cell, /^[=+\-@\t\r]/, `unsafe cell ${JSON.stringify(cell)}`);
      const rows = parse(res.body, { columns: true }) as Record<string, string>[];
      const anna = rows.find((r) => r.email === "anna.mueller@acme.test")!;
      assert.equal(anna.company, `'=HYPERLINK("http://evil.test","click")`);
      assert.equal(anna.phone, "'+49 30 1234567");
      assert.equal(anna["Favorite Color"], "blue", "a custom field is a column of its own");
      assert.equal(anna["customFields.status"], "hot", "prefixed where the name alone is a lead column");
      assert.equal(anna["customFields.Company"], "their own column name");
      assert.equal(anna["'=cmd"], "'-1");
      if (kind === "sqlite")
        assert.equal(rows.find((r) => r.email === "cleo@example.test")!.title, "ChiefOfficer");
    });

    it("re-imports an export to the same leads", { skip }, async () => {
      if (kind === "sqlite") {
        await h.services.database.db
          .updateTable("leads")
          .set({ title: null })
          .where("email", "=", "cleo@example.test")
          .execute();
      }
      const exported = await get(key, "/v1/leads/export");
      const res = await importCsv(otherKey, exported.body);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().created, LEADS.length);
      const byEmail = (leads: Record<string, unknown>[]) =>
        new Map(leads.map((lead) => [lead.email, userFieldsOf(lead)]));
      const original = byEmail(await leadsOf(key));
      const again = byEmail(await leadsOf(otherKey));
      for (const [email, fields] of original) assert.deepEqual(again.get(email), fields, String(email));
      const anna = again.get("anna.mueller@acme.test")!;
      assert.equal(anna.phone, "+49 30 1234567");
      assert.equal(anna.status, false);
    });

    it("adds the verdict, its reason in words, didYouMean and validatedAt", { skip }, async () => {
      await h.services.database.db
        .updateTable("leads")
        .set({
          email_status: "invalid",
          email_reason: "dns_nxdomain",
          did_you_mean: "ben@example.com",
          validated_at: "2026-11-01T10:00:00.000Z",
        })
        .where("email", "=", "ben@example.test")
        .execute();
      const rows = parse((await get(key, "/v1/leads/export")).body, { columns: true }) as Record<
        string,
        string
      >[];
      const ben = rows.find((r) => r.email === "ben@example.test")!;
      assert.deepEqual(
        [ben.emailStatus, ben.emailReason, ben.emailReasonLabel, ben.didYouMean, ben.validatedAt],
        ["invalid", "dns_nxdomain", "Domain does not exist", "ben@example.com", "2026-11-01T10:00:00.000Z"],
      );
    });

    it("exports only the leads the list's filters and search select", { skip }, async () => {
      const emailsOf = async (query: string) => {
        const res = await get(key, `/v1/leads/export?${query}`);
        assert.equal(res.statusCode, 200, res.body);
        return (parse(res.body, { columns: true }) as { email: string }[]).map((r) => r.email).sort();
      };
      assert.deepEqual(await emailsOf("search=m%C3%BCller"), ["anna.mueller@acme.test"]);
      assert.deepEqual(await emailsOf("tag=vip"), ["anna.mueller@acme.test"]);
      assert.deepEqual(await emailsOf("hasDidYouMean=true"), ["ben@example.test"]);
      assert.deepEqual(await emailsOf("search=example&validationStatus=new"), [
        "ben@example.test",
        "cleo@example.test",
      ]);
      const list = (await get(key, "/v1/leads?search=example")).json();
      assert.deepEqual(
        await emailsOf("search=example"),
        list.leads.map((l: { email: string }) => l.email).sort(),
      );
      const bad = await get(key, "/v1/leads/export?validationStatus=done");
      assert.equal(bad.statusCode, 422);
      assert.match(bad.json().details.errors[0].message, /must be one of: new, processing/);
    });

    it("imports a Latin-1 file and a semicolon file with their umlauts", { skip }, async () => {
      const latin1 = iconv.encode("email,company\nlatin@acme.test,Müller GmbH\n", "latin1");
      const viaBody = await importCsv(key, latin1);
      assert.equal(viaBody.statusCode, 200, viaBody.body);
      const semicolon = iconv.encode("E-Mail;Firma;Vorname\nsemi@acme.test;Köln AG;Jürgen\n", "windows-1252");
      const viaUpload = await upload(key, semicolon);
      assert.equal(viaUpload.statusCode, 200, viaUpload.body);
      const utf16 = iconv.encode("email\tcompany\nwide@acme.test\tZürich SA\n", "utf-16le", { addBOM: true });
      assert.equal((await upload(key, utf16)).statusCode, 200);
      const leads = await leadsOf(key);
      const company = (email: string) => leads.find((l) => l.email === email)?.company;
      assert.equal(company("latin@acme.test"), "Müller GmbH");
      assert.equal(company("semi@acme.test"), "Köln AG");
      assert.equal(company("wide@acme.test"), "Zürich SA");
      assert.equal(leads.find((l) => l.email === "semi@acme.test")?.firstName, "Jürgen");
    });

    it("names the real line of an unclosed quote in a 20,000-line file, in words", { skip }, async () => {
      const lines = ["email,company"];
      for (let line = 2; line <= 20_000; line++) {
        if (line === 9) lines.push(`line${line}@acme.test,"Unclosed Co`);
        else if (line % 1000 === 2) lines.push(`line${line}@acme.test,"Quoted, Co"`);
        else lines.push(`line${line}@acme.test,Co ${line}`);
      }
      const res = await importCsv(key, lines.join("\n"));
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(res.json().details.errors, [
        { field: "line 9", message: "line 9: a quoted field is not closed", type: "csv" },
      ]);
      assert.equal(res.json().message, "line 9: a quoted field is not closed; nothing was imported");
      const ragged = await importCsv(key, "email,company\na@acme.test,A\nb@acme.test,B,extra\n");
      assert.equal(ragged.json().details.errors[0].field, "line 3");
      assert.match(
        ragged.json().details.errors[0].message,
        /^line 3: the row has a different number of fields/,
      );
    });

    it("reports bad rows by the line they start on, after multi-line fields and blank lines", {
      skip,
    }, async () => {
      const csv = 'email,notes\nok1@acme.test,"two\nlines"\n\nnot-an-email,x\nok2@acme.test,"a\u0000"\n';
      const res = await importCsv(key, csv);
      assert.equal(res.statusCode, 422, res.body);
      const errors = res.json().details.errors as { field: string; message: string }[];
      assert.deepEqual(
        errors.map((e) => e.field),
        ["line 5", "line 6"],
      );
      assert.match(errors[1]!.message, /notes: contains a NUL/);
    });
  });
}
