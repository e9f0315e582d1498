// Errors that help (ADR 0021), on both databases: bad bytes are a 422 naming the field and never
// stored; enum errors list the allowed values; `field` and `detail.loc` are the JSON path; email
// syntax errors name the character; a JSON body sent as text is a 415.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, UNLIMITED_RATE_ENV } from "../support/harness.js";

interface ErrorItem {
  field: string;
  message: string;
  type: string;
}
interface Detail {
  loc: (string | number)[];
  msg: string;
}

for (const kind of dialects()) {
  describe(`errors that help (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    let key = "";
    const call = (method: "GET" | "POST" | "PUT", url: string, payload?: unknown) =>
      h.call(key, method, url, payload);
    const storedLeads = async () =>
      Number(
        (
          await h.services.database.db
            .selectFrom("leads")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const refused = (res: { statusCode: number; body: string; json(): Record<string, unknown> }) => {
      assert.equal(res.statusCode, 422, res.body);
      const body = res.json() as { details: { errors: ErrorItem[] }; detail: Detail[] };
      return { errors: body.details.errors, detail: body.detail };
    };

    before(async () => {
      if (skip) return;
      h = await startHarness(kind, UNLIMITED_RATE_ENV);
      key = await h.apiKey("acct_helpful_errors");
    });
    after(() => h?.close());

    it("refuses NUL and other control characters in any text field with 422 naming it, storing nothing", {
      skip,
    }, async () => {
      for (const [payload, field, loc] of [
        [{ email: "nul@acme.test", firstName: "Jo\u0000hn" }, "firstName", ["body", "firstName"]],
        [{ email: "nul@acme.test", company: "Acme\u0007" }, "company", ["body", "company"]],
        [{ email: "nul@acme.test", notes: "a\u0000" }, "notes", ["body", "notes"]],
        [{ email: "nul@acme.test", company: "Acme\ud800" }, "company", ["body", "company"]],
        [{ email: "nul@acme.test", tags: ["ok", "b\u0000"] }, "tags.1", ["body", "tags", 1]],
        [{ email: "nul@acme.test", customFields: { note: "x\u0000" } }, "customFields.note", null],
        [{ email: "nul@acme.test", customFields: { "k\u0000": "v" } }, "customFields.k\u0000", null],
        [{ email: "nul@acme.test", company: "Acme\tInc" }, "company", ["body", "company"]],
        [{ email: "nul\u0000@acme.test" }, "email", ["body", "email"]],
      ] as const) {
        const { errors, detail } = refused(await call("POST", "/v1/leads", { ...payload, validate: false }));
        assert.equal(errors[0]!.field, field, JSON.stringify(payload));
        assert.match(errors[0]!.message, /contains/);
        if (loc) assert.deepEqual(detail[0]!.loc, loc);
      }
      const bulk = refused(
        await call("POST", "/v1/leads/bulk", {
          leads: [{ email: "a@acme.test" }, { email: "b@acme.test", lastName: "\u0000" }],
          validate: false,
        }),
      );
      assert.deepEqual(bulk.detail[0]!.loc, ["body", "leads", 1, "lastName"]);
      assert.equal(bulk.errors[0]!.field, "leads.1.lastName");
      assert.equal(await storedLeads(), 0, "nothing was stored");
    });

    it("refuses NUL in a query or path parameter with 422 instead of a database error", {
      skip,
    }, async () => {
      const search = refused(await call("GET", "/v1/leads?search=a%00b"));
      assert.equal(search.errors[0]!.field, "querystring.search");
      assert.deepEqual(search.detail[0]!.loc, ["query", "search"]);
      const path = refused(await call("GET", "/v1/leads/lead_%00"));
      assert.deepEqual(path.detail[0]!.loc, ["path", "leadId"]);
    });

    it("keeps tabs and line breaks in multi-line fields (notes) and free-form custom fields", {
      skip,
    }, async () => {
      const notes = "line 1\r\nline 2\tindented";
      const res = await call("POST", "/v1/leads", {
        email: "multi@acme.test",
        notes,
        customFields: { memo: "a\nb" },
        validate: false,
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().notes, notes);
      const bulk = await call("POST", "/v1/leads/bulk", {
        leads: [
          { email: "bulk1@acme.test", notes: "x\ny" },
          { email: "bulk2@acme.test", firstName: "Tab\there" },
        ],
        validate: false,
      });
      assert.equal(bulk.statusCode, 200, bulk.body);
      assert.equal(bulk.json().created, 1);
      assert.match(bulk.json().errors[0].error, /^firstName: contains a tab/);
    });

    it("lists the allowed values of an enum once, at the field's JSON path", { skip }, async () => {
      const { errors, detail } = refused(
        await call("POST", "/v1/leads", { email: "enum@acme.test", priority: "super", validate: false }),
      );
      assert.deepEqual(errors, [
        { field: "priority", message: "must be one of: low, normal, high, urgent", type: "enum" },
      ]);
      assert.deepEqual(detail, [
        { loc: ["body", "priority"], msg: "must be one of: low, normal, high, urgent", type: "enum" },
      ]);
      const query = refused(await call("GET", "/v1/leads?validationStatus=done"));
      assert.equal(query.errors.length, 1);
      assert.equal(query.errors[0]!.message, "must be one of: new, processing, valid, invalid, risky");
      assert.deepEqual(query.detail[0]!.loc, ["query", "validationStatus"]);
      const bulk = await call("POST", "/v1/leads/bulk", {
        leads: [{ email: "bulk-enum@acme.test", priority: "super" }],
        validate: false,
      });
      assert.equal(bulk.json().errors[0].error, "priority: must be one of: low, normal, high, urgent");
      const csv = await h.app.inject({
        method: "POST",
        url: "/v1/leads/import?validate=false",
        headers: { "x-api-key": key, "content-type": "text/csv" },
        payload: "email,priority\ncsv-enum@acme.test,super\n",
      });
      assert.equal(csv.statusCode, 422, csv.body);
      assert.match(
        csv.json().details.errors[0].message,
        /priority: must be one of: low, normal, high, urgent$/,
      );
      const nullable = refused(
        await call("POST", "/v1/leads", { email: "n@acme.test", company: 5, validate: false }),
      );
      assert.deepEqual(nullable.errors, [
        { field: "company", message: "must be string or null", type: "type" },
      ]);
      const empty = refused(
        await call("POST", "/v1/leads", { email: "e@acme.test", firstName: "", validate: false }),
      );
      assert.deepEqual(empty.errors, [
        { field: "firstName", message: "must NOT have fewer than 1 characters", type: "minLength" },
      ]);
      const tags = refused(
        await call("POST", "/v1/leads", { email: "t@acme.test", tags: ["ok", ""], validate: false }),
      );
      assert.deepEqual(
        tags.detail.map((d) => d.loc),
        [["body", "tags", 1]],
      );
    });

    it("gives the path of a nested field and never [body, body]", { skip }, async () => {
      const nested = refused(await call("POST", "/v1/leads/bulk", { leads: [{ email: "x@acme.test" }, 5] }));
      assert.deepEqual(nested.detail[0]!.loc, ["body", "leads", 1]);
      const whole = refused(await call("POST", "/v1/leads", [1, 2]));
      assert.deepEqual(whole.detail[0]!.loc, ["body"]);
      assert.equal(whole.errors[0]!.field, "body");
      const missing = refused(await call("POST", "/v1/leads", { validate: false }));
      assert.deepEqual(missing.detail[0]!.loc, ["body", "email"]);
    });

    it("names the offending character of an email", { skip }, async () => {
      const { errors } = refused(
        await call("POST", "/v1/leads", { email: "jane doe@example.com", validate: false }),
      );
      assert.equal(errors[0]!.field, "email");
      assert.match(errors[0]!.message, /contains a space/);
      const check = refused(await call("POST", "/v1/check-email", { email: "jane,doe@example.com" }));
      assert.equal(check.errors[0]!.message, "invalid email: the local part contains a comma (,)");
    });

    it("answers a JSON body sent with another content type with 415", { skip }, async () => {
      for (const contentType of ["text/plain", "text/csv", "application/x-www-form-urlencoded"]) {
        const res = await h.app.inject({
          method: "POST",
          url: "/v1/leads",
          headers: { "x-api-key": key, "content-type": contentType },
          payload: JSON.stringify({ email: "plain@acme.test", validate: false }),
        });
        assert.equal(res.statusCode, 415, `${contentType}: ${res.body}`);
        assert.equal(res.json().error_code, "UNSUPPORTED_MEDIA_TYPE");
      }
    });
  });
}
