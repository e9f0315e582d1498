// The CI run of `npm run eval:parked`: leave-one-source-out on the fixed, seeded sample of held-out
// groups, failing below the gate (test/support/parked-eval-report.ts, ADR 0011).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GATE, runEvaluation } from "../../support/parked-eval-report.js";

describe("parked detector, leave-one-source-out (CI sample)", () => {
  it(`finds at least ${Math.round(GATE.recall * 100)} % of held-out parked pages at most ${(GATE.falseParked * 100).toFixed(1)} % false parked, no group below ${Math.round(GATE.groupRecall * 100)} %`, () => {
    const lines: string[] = [];
    const result = runEvaluation({ full: false, log: (l) => lines.push(l) });
    console.log(lines.join("\n"));
    assert.ok(result.passed, result.failures.join("; "));
    assert.ok(
      result.heldOut.positives > 0 && result.heldOut.negatives > 0,
      "the sample holds out both kinds",
    );
  });
});
