import assert from "node:assert/strict";
import { describe, it } from "node:test";
import iconv from "iconv-lite";
import { decodeCsvBytes, detectDelimiter, neutraliseCell, unneutraliseCell } from "./csv-text.js";

const TEXT = "email;company\nm@example.test;Müller GmbH\nk@example.test;Café “Zürich” €\n";

describe("decodeCsvBytes", () => {
  it("reads each supported encoding back to the same text", () => {
    const cases: [string, Buffer, string][] = [
      ["UTF-8", Buffer.from(TEXT, "utf8"), "utf-8"],
      ["UTF-8 with BOM", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT)]), "utf-8"],
      ["UTF-16LE with BOM", iconv.encode(TEXT, "utf-16le", { addBOM: true }), "utf-16le"],
      ["UTF-16BE with BOM", iconv.encode(TEXT, "utf-16be", { addBOM: true }), "utf-16be"],
      ["UTF-16LE without BOM", iconv.encode(TEXT, "utf-16le"), "utf-16le"],
      ["Windows-1252", iconv.encode(TEXT, "windows-1252"), "windows-1252"],
    ];
    for (const [label, bytes, encoding] of cases) {
      const decoded = decodeCsvBytes(bytes);
      assert.equal(decoded.text, TEXT, label);
      assert.equal(decoded.encoding, encoding, label);
    }
  });

  it("reads a long Windows-1252 file as such, though chardet also ranks Shift_JIS for it", () => {
    const rows = ["email;company;notes"];
    for (let i = 0; i < 500; i++) rows.push(`u${i}@example.test;Müller GmbH;${"x".repeat(300)}`);
    const text = `${rows.join("\n")}\n`;
    const decoded = decodeCsvBytes(iconv.encode(text, "windows-1252"));
    assert.equal(decoded.encoding, "windows-1252");
    assert.equal(decoded.text, text);
  });

  it("keeps Windows-1252 for Western text and takes another single-byte encoding when clearly better", () => {
    const western = "email,company\na@x.de,Café “Zürich” – €5\nb@x.es,Compañía Ibérica\n";
    assert.equal(decodeCsvBytes(iconv.encode(western, "windows-1252")).text, western);
    const polish = "email,firma\na@x.pl,Zakład Łódź Spółka\nb@x.pl,Przedsiębiorstwo Gdańsk\n";
    const decoded = decodeCsvBytes(iconv.encode(polish, "windows-1250"));
    assert.equal(decoded.encoding, "windows-1250");
    assert.equal(decoded.text, polish);
  });

  it("reads Latin-1 (ISO-8859-1) as its superset Windows-1252", () => {
    const latin1 = iconv.encode("email,company\nm@example.test,Müller GmbH\n", "latin1");
    assert.equal(decodeCsvBytes(latin1).text, "email,company\nm@example.test,Müller GmbH\n");
  });
});

describe("detectDelimiter", () => {
  it("takes the delimiter the header row uses, outside quotes", () => {
    assert.equal(detectDelimiter("email,name\n"), ",");
    assert.equal(detectDelimiter("email;name;company\na,b;c\n"), ";");
    assert.equal(detectDelimiter("email\tname\n"), "\t");
    assert.equal(detectDelimiter("email|name\n"), "|");
    assert.equal(detectDelimiter('"a;b;c",email\n'), ",");
    assert.equal(detectDelimiter("\n\nemail;name\n"), ";");
    assert.equal(detectDelimiter("email\nx@y.test\n"), ",");
  });
});

describe("neutraliseCell", () => {
  it("quotes formula starts (OWASP) and drops NULs", () => {
    for (const [value, cell] of [
      ['=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'],
      ["+49 30 1234567", "'+49 30 1234567"],
      ["-5", "'-5"],
      ["@SUM(A1)", "'@SUM(A1)"],
      ["\tx", "'\tx"],
      ["\rx", "'\rx"],
      ["a\u0000b", "ab"],
      ["plain", "plain"],
      ["'quoted", "'quoted"],
      ["''=x", "'''=x"],
    ]) {
      assert.equal(neutraliseCell(value!), cell, JSON.stringify(value));
    }
  });

  it("round-trips every value without NUL through unneutraliseCell", () => {
    for (const value of ["=1+1", "+49 30 1234567", "-", "@", "'=x", "''+y", "'", "'a", "a=b", "", "\t"]) {
      assert.equal(unneutraliseCell(neutraliseCell(value)), value, JSON.stringify(value));
    }
  });
});
