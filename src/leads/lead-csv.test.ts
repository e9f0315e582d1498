import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseLeadsCsv } from "./lead-csv.js";

const ok = (input: string | Buffer) => {
  const parsed = parseLeadsCsv(input);
  if (!parsed.ok) assert.fail(JSON.stringify(parsed.errors));
  return parsed.value;
};
const errorsOf = (input: string) => {
  const parsed = parseLeadsCsv(input);
  assert.equal(parsed.ok, false);
  return parsed.ok ? [] : parsed.errors;
};

describe("parseLeadsCsv", () => {
  it("gives each record the line it starts on, across CRLF, multi-line fields and blank lines", () => {
    const parsed = ok(
      'email,notes\r\na@x.test,"one\r\ntwo"\r\n\r\nb@x.test,x\r\nc@x.test,"3\n4\n5"\nd@x.test,\n',
    );
    assert.deepEqual(parsed.lines, [2, 5, 6, 9]);
    assert.equal(parsed.leads[0]!.notes, "one\r\ntwo");
  });

  it("counts a CRLF inside a quoted field as one line break (csv-parse counts it twice)", () => {
    const parsed = ok('email,notes\r\na@x.test,"1\r\n2\r\n3"\r\nb@x.test,x\r\n');
    assert.deepEqual(parsed.lines, [2, 5]);
    assert.deepEqual(errorsOf('email,notes\r\na@x.test,"1\r\n2"\r\nb@x.test,"x"y\r\n'), [
      {
        line: 4,
        message:
          'line 4: a quoted field has text after its closing quote (write a quote inside a quoted field as "")',
      },
    ]);
  });

  it("skips our export's computed columns and reads status, prefixed and JSON custom columns", () => {
    const csv = [
      "id,email,status,validationStatus,leadDeliverabilityRating,emailReason,customFields.status,customFields,Color",
      'lead_1,a@x.test,false,valid,90,deliverable,hot,"{""tier"":""gold"",""n"":5}",blue',
    ].join("\n");
    const [lead] = ok(csv).leads;
    assert.deepEqual(lead, {
      email: "a@x.test",
      status: false,
      customFields: { status: "hot", tier: "gold", n: "5", Color: "blue" },
    });
  });

  it("keeps a user's own id, status and rating columns as custom fields in a file that is not our export", () => {
    const [lead] = ok("email,id,status,validationStatus\na@x.test,42,contacted,new\n").leads;
    assert.deepEqual(lead!.customFields, { id: "42", status: "contacted", validationStatus: "new" });
  });

  it("removes the quote our export put before a formula character, in cells and headers", () => {
    const [lead] = ok("email,phone,'=cmd,company\na@x.test,'+49 30 1234567,'-1,'O'Brien\n").leads;
    assert.equal(lead!.phone, "+49 30 1234567");
    assert.equal(lead!.company, "'O'Brien", "a quote before an ordinary character stays");
    assert.deepEqual(lead!.customFields, { "=cmd": "-1" });
  });

  it("reads semicolon, tab and pipe files", () => {
    for (const d of [";", "\t", "|"]) {
      const [lead] = ok(`email${d}company${d}first name\na@x.test${d}Comma, Inc${d}Ann\n`).leads;
      assert.deepEqual([lead!.email, lead!.company, lead!.firstName], ["a@x.test", "Comma, Inc", "Ann"], d);
    }
  });

  it("says what is wrong with the header in words", () => {
    const [error] = errorsOf("name;company\nx;y\n");
    assert.equal(error!.line, 1);
    assert.match(error!.message, /no email column \(columns read: name \| company\)/);
  });

  it("names the line where an unclosed quote opens, not where the parser gave up", () => {
    const lines = ["email,company", ...Array.from({ length: 30 }, (_, i) => `u${i}@x.test,Co`)];
    lines[7] = 'u7@x.test,"Unclosed';
    lines[20] = 'u20@x.test,"Quoted, Co"';
    assert.deepEqual(errorsOf(lines.join("\n")), [
      { line: 8, message: "line 8: a quoted field is not closed" },
    ]);
  });
});
