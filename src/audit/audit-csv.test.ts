import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { csvCell, csvRow } from "./audit-csv.js";

describe("audit CSV cells", () => {
  it("neutralises every cell a spreadsheet would run as a formula", () => {
    const table: [string, string][] = [
      ["=1+1", "'=1+1"],
      ["+cmd", "'+cmd"],
      ["-2", "'-2"],
      ["@SUM(A1)", "'@SUM(A1)"],
      ["\tx", "'\tx"],
      ["\rx", `"'\rx"`],
      ["plain", "plain"],
      ['say "hi", twice', '"say ""hi"", twice"'],
    ];
    for (const [input, expected] of table) assert.equal(csvCell(input), expected, JSON.stringify(input));
  });

  it("writes nulls as empty cells and ends rows with CRLF", () => {
    assert.equal(csvRow(["a", null, 3]), "a,,3\r\n");
  });
});
