import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { splitPastedList } from "./pasted-list.js";

describe("pasted lists", () => {
  it("split on lines and commas, keep line numbers, skip blanks", () => {
    assert.deepEqual(splitPastedList("a@x.test\r\n\nb@x.test, c@x.test ,\n  d@x.test  "), [
      { value: "a@x.test", line: 1 },
      { value: "b@x.test", line: 3 },
      { value: "c@x.test", line: 3 },
      { value: "d@x.test", line: 4 },
    ]);
  });

  it("do not split on spaces inside a line", () => {
    assert.deepEqual(splitPastedList("Jo Smith <jo@x.test>\nacme .com"), [
      { value: "Jo Smith <jo@x.test>", line: 1 },
      { value: "acme .com", line: 2 },
    ]);
  });
});
