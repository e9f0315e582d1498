import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "@sinclair/typebox";
import { findUnsafeText, MULTILINE, unsafeTextReason } from "./safe-text.js";

describe("unsafeTextReason", () => {
  it("refuses NUL, other C0 controls and unpaired surrogates, and names the character", () => {
    for (const [text, type, message] of [
      ["a\u0000b", "control_character", "contains a NUL character (U+0000)"],
      ["a\u0007b", "control_character", "contains the control character U+0007"],
      ["a\u001fb", "control_character", "contains the control character U+001F"],
      ["a\ud800b", "unpaired_surrogate", "contains an unpaired UTF-16 surrogate (U+D800)"],
      ["a\udc00", "unpaired_surrogate", "contains an unpaired UTF-16 surrogate (U+DC00)"],
      ["\ud800", "unpaired_surrogate", "contains an unpaired UTF-16 surrogate (U+D800)"],
    ] as const) {
      for (const multiline of [false, true]) {
        assert.deepEqual(unsafeTextReason(text, multiline), { type, message }, JSON.stringify(text));
      }
    }
  });

  it("lets tab, LF and CR through only in multi-line text", () => {
    for (const text of ["a\tb", "a\nb", "a\r\nb"]) {
      assert.equal(unsafeTextReason(text, true), null);
      assert.equal(unsafeTextReason(text, false)?.type, "line_break");
    }
    assert.match(unsafeTextReason("a\tb", false)!.message, /contains a tab \(U\+0009\)/);
  });

  it("accepts ordinary text, emoji (paired surrogates) and DEL-free Unicode", () => {
    for (const text of ["", "Müller GmbH", "😀 ok", "日本語", "x".repeat(10_000)]) {
      assert.equal(unsafeTextReason(text, false), null, text);
    }
  });
});

describe("findUnsafeText", () => {
  const schema = Type.Object({
    name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    notes: Type.Optional(Type.Union([Type.String({ [MULTILINE]: true }), Type.Null()])),
    tags: Type.Optional(Type.Array(Type.String())),
    custom: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  });

  it("gives the JSON path of each bad string, property names included", () => {
    const found = findUnsafeText(
      { name: "a\u0000", tags: ["ok", "b\u0000"], custom: { "k\u0000": "v", deep: { x: ["\ud800"] } } },
      schema,
    );
    assert.deepEqual(
      found.map((f) => f.path),
      [["name"], ["tags", 1], ["custom", "k\u0000"], ["custom", "deep", "x", 0]],
    );
    assert.match(found[2]!.message, /^the field name contains a NUL/);
  });

  it("reads the schema to allow line breaks in multi-line and free-form fields only", () => {
    assert.deepEqual(findUnsafeText({ notes: "line 1\nline 2\tx", custom: { memo: "a\nb" } }, schema), []);
    const found = findUnsafeText({ name: "a\nb", tags: ["x\ty"] }, schema);
    assert.deepEqual(
      found.map((f) => [f.path, f.type]),
      [
        [["name"], "line_break"],
        [["tags", 0], "line_break"],
      ],
    );
  });

  it("stops at the limit and skips Buffers (raw bodies)", () => {
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, "\u0000"]));
    assert.equal(findUnsafeText(many, undefined, 20).length, 20);
    assert.deepEqual(findUnsafeText({ raw: Buffer.from([0, 1, 2]) }, undefined), []);
  });

  it("finds the one bad character however deep it sits, whatever clean text surrounds it", () => {
    // The quick scan that clears ordinary requests must not clear these (ADR 0082).
    const clean = {
      name: "Müller 😀",
      tags: ["a", "b"],
      custom: { memo: "x", deep: { list: ["日本語", 1, null, true] } },
    };
    assert.deepEqual(findUnsafeText(clean, schema), []);
    for (const [value, path] of [
      [{ ...clean, custom: { deep: { list: ["ok", "\u0001"] } } }, ["custom", "deep", "list", 1]],
      [{ ...clean, custom: { deep: { "\ud800": 1 } } }, ["custom", "deep", "\ud800"]],
      [[{ a: [[["\u001f"]]] }], [0, "a", 0, 0, 0]],
      ["\udc00", []],
    ] as const) {
      assert.deepEqual(
        findUnsafeText(value, undefined).map((f) => f.path),
        [path],
        JSON.stringify(value),
      );
    }
  });
});
