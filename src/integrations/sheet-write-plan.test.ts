import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planSheetWrite, type VerdictCells } from "./sheet-write-plan.js";

const verdicts = new Map<string, VerdictCells>([
  ["a@x.test", ["valid", "deliverable", "92", "high_priority", "2026-11-28T09:00:00.000Z"]],
  ["b@x.test", ["unknown", "smtp_timeout", "unknown", "research", "2026-11-28T09:00:00.000Z"]],
]);
const lookup = (email: string) => verdicts.get(email.toLowerCase());

describe("sheet write-back plan", () => {
  it("adds our five columns at the right of the header and writes only matched rows", () => {
    const plan = planSheetWrite(
      "Leads",
      [
        ["Email", "Name", "Notes"],
        ["a@x.test", "A", "keep"],
        ["z@x.test", "Z"],
        ["B@x.test", "B"],
      ],
      0,
      lookup,
    );
    assert.deepEqual(plan.header, {
      range: "'Leads'!D1:H1",
      values: [
        [
          "leadcheck_status",
          "leadcheck_reason",
          "leadcheck_score",
          "leadcheck_recommendation",
          "leadcheck_verified_at",
        ],
      ],
    });
    assert.deepEqual(
      plan.rows.map((r) => r.writes.map((w) => w.range)),
      [["'Leads'!D2:H2"], ["'Leads'!D4:H4"]],
    );
    assert.equal(plan.rows[1]!.writes[0]!.values[0]![0], "unknown");
  });

  it("finds our columns by header wherever the user moved them, and adds none twice", () => {
    const rows = [
      [
        "leadcheck_score",
        "Email",
        "leadcheck_status",
        "leadcheck_reason",
        "x",
        "leadcheck_recommendation",
        "leadcheck_verified_at",
      ],
      ["", "a@x.test"],
    ];
    const plan = planSheetWrite("Leads", rows, 1, lookup);
    assert.equal(plan.header, null);
    assert.deepEqual(
      plan.rows[0]!.writes.map((w) => [w.range, w.values[0]]),
      [
        ["'Leads'!A2:A2", ["92"]],
        ["'Leads'!C2:D2", ["valid", "deliverable"]],
        ["'Leads'!F2:G2", ["high_priority", "2026-11-28T09:00:00.000Z"]],
      ],
    );
  });

  it("follows a row to its new position after a sort, never writing by the old position", () => {
    const sorted = [["Email"], ["b@x.test"], ["a@x.test"]];
    const plan = planSheetWrite("Leads", sorted, 0, lookup);
    assert.deepEqual(
      plan.rows.map((r) => [r.email, r.writes[0]!.range, r.writes[0]!.values[0]![0]]),
      [
        ["b@x.test", "'Leads'!B2:F2", "unknown"],
        ["a@x.test", "'Leads'!B3:F3", "valid"],
      ],
    );
  });

  it("quotes sheet names with spaces and apostrophes", () => {
    const plan = planSheetWrite("Q4 'hot' leads", [["Email"], ["a@x.test"]], 0, lookup);
    assert.equal(plan.rows[0]!.writes[0]!.range, "'Q4 ''hot'' leads'!B2:F2");
  });

  it("marks a row that already shows its verdict (a resumed pass), and only when all five match", () => {
    const header = [
      "Email",
      "leadcheck_status",
      "leadcheck_reason",
      "leadcheck_score",
      "leadcheck_recommendation",
      "leadcheck_verified_at",
    ];
    const rows = [
      header,
      ["a@x.test", "valid", "deliverable", "92", "high_priority", "2026-11-28T09:00:00.000Z"],
      ["b@x.test", "unknown", "smtp_timeout", "unknown", "research", "an older date"],
    ];
    const plan = planSheetWrite("Leads", rows, 0, lookup);
    assert.deepEqual(
      plan.rows.map((r) => [r.email, r.holds]),
      [
        ["a@x.test", true],
        ["b@x.test", false],
      ],
    );
  });
});
