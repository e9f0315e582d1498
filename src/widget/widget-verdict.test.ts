import assert from "node:assert/strict";
import { test } from "node:test";
import { quickLook, scriptedVerdict } from "./widget-verdict.js";

test("answers without the network: syntax, a known typo (before the disposable list), a disposable domain", () => {
  const cases: [string, string, string | null][] = [
    ["not an email", "invalid/invalid_syntax", null],
    ["jane@gmial.com", "risky/typo", "jane@gmail.com"],
    ["temp@mailinator.com", "risky/disposable", null],
  ];
  for (const [email, expected, didYouMean] of cases) {
    const look = quickLook(email);
    assert.equal(look.kind, "answer", email);
    if (look.kind !== "answer") continue;
    assert.equal(`${look.verdict.status}/${look.verdict.reason}`, expected, email);
    assert.equal(look.verdict.didYouMean, didYouMean, email);
  }
});

test("leaves the rest to the probe, with the list facts ready for a deadline answer", () => {
  const look = quickLook("info@gmail.com");
  assert.equal(look.kind, "needs_probe");
  if (look.kind !== "needs_probe") return;
  assert.deepEqual(
    { status: look.facts.status, reason: look.facts.reason, role: look.facts.role, free: look.facts.free },
    { status: "unknown", reason: "deadline", role: true, free: true },
  );
});

test("scripts test mode's magic inputs", () => {
  const expected: Record<string, string> = {
    "valid@x.example": "valid/deliverable",
    "invalid@x.example": "invalid/mailbox_not_found",
    "catchall@x.example": "risky/accept_all",
    "someone@x.example": "unknown/not_scripted",
  };
  for (const [email, answer] of Object.entries(expected)) {
    const look = quickLook(email);
    assert.equal(look.kind, "needs_probe");
    if (look.kind !== "needs_probe") continue;
    const verdict = scriptedVerdict(look.parsed, look.facts);
    assert.notEqual(verdict, "slow");
    if (verdict !== "slow") assert.equal(`${verdict.status}/${verdict.reason}`, answer, email);
  }
  const slow = quickLook("slow@x.example");
  assert.ok(slow.kind === "needs_probe" && scriptedVerdict(slow.parsed, slow.facts) === "slow");
});
