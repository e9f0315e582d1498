// The Import page's preview (dashboard/src/csv-preview.ts) against the API's own parser: every
// header the preview maps to a field is one the API maps to that field, and the preview counts,
// splits and quotes rows the way the file reads.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FIELD_BY_HEADER, previewCsv, TEMPLATE_CSV } from "../../dashboard/src/csv-preview.js";
import { parseLeadsCsv } from "../../src/leads/lead-csv.js";

describe("the import preview", () => {
  it("maps each header to the field the API maps it to", () => {
    for (const [header, field] of Object.entries(FIELD_BY_HEADER)) {
      if (field === "email") continue;
      const value = field === "priority" ? "high" : field === "tags" ? "vip" : "https://example.test/x";
      const parsed = parseLeadsCsv(`email,${header}\nx@acme.test,${value}\n`);
      assert.ok(parsed.ok, header);
      const lead = parsed.value.leads[0] as Record<string, unknown>;
      assert.ok(lead[field] !== undefined, `${header} → ${field}: ${JSON.stringify(lead)}`);
      assert.equal(lead.customFields, undefined, `${header} is not a custom field`);
    }
    for (const header of ["Email", "E-Mail Address", "mail"]) {
      const preview = previewCsv(`${header}\nx@acme.test\n`);
      assert.equal(preview.hasEmail, true, header);
      assert.ok(parseLeadsCsv(`${header}\nx@acme.test\n`).ok, header);
    }
  });

  it("reads the template as the API does", () => {
    const parsed = parseLeadsCsv(TEMPLATE_CSV);
    assert.ok(parsed.ok);
    assert.equal(parsed.value.leads.length, 1);
    assert.equal(parsed.value.leads[0]!.customFields, undefined, "every template column is a field");
    const preview = previewCsv(TEMPLATE_CSV);
    assert.equal(preview.rowCount, 1);
    assert.ok(preview.columns.every((c) => c.field !== null));
  });

  it("detects the delimiter, keeps quoted delimiters and line breaks, and counts every row", () => {
    const text =
      '\uFEFFemail;notes;Favourite\r\na@acme.test;"one; two";blue\r\n\r\nb@acme.test;"line\nbreak";""""\r\n';
    const preview = previewCsv(text, 1);
    assert.equal(preview.delimiter, ";");
    assert.deepEqual(
      preview.columns.map((c) => [c.header, c.field]),
      [
        ["email", "email"],
        ["notes", "notes"],
        ["Favourite", null],
      ],
    );
    assert.deepEqual(preview.rows, [["a@acme.test", "one; two", "blue"]], "the sample stops at 1");
    assert.equal(preview.rowCount, 2, "the blank line is not a row; the quoted break is not one either");
    assert.equal(previewCsv('email\n"open\n').unclosedQuote, true);
    assert.equal(previewCsv("email\tname\nx@acme.test\tX\n").delimiter, "\t");
    assert.equal(previewCsv("email\nx@acme.test\n").delimiter, ",");
  });
});
