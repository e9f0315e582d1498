// Agreement of the reply classifier with a corpus of real SMTP replies collected from public
// sources (test/fixtures/smtp-replies.json; every row cites its source). Labels are by meaning for
// an RCPT probe, not by code class: see docs/decisions/0010-email-verdicts.md.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { classifyReply } from "./reply-classifier.js";

interface CorpusRow {
  code: number;
  enhanced: string | null;
  text: string;
  expected: string;
  source: string;
  codeInferred?: boolean;
}

const MIN_AGREEMENT = 0.97;
const corpus = JSON.parse(
  readFileSync(new URL("../../../test/fixtures/smtp-replies.json", import.meta.url), "utf8"),
) as { rows: CorpusRow[] };

describe("reply classifier against real replies", () => {
  it("has at least 200 rows, each with a source", () => {
    assert.ok(corpus.rows.length >= 200, `${corpus.rows.length} rows`);
    for (const row of corpus.rows) assert.ok(row.source.length > 0, row.text);
  });

  it(`agrees with at least ${MIN_AGREEMENT * 100} % of the corpus`, () => {
    const misses: string[] = [];
    for (const row of corpus.rows) {
      const got = classifyReply("rcpt", {
        code: row.code,
        enhanced: row.enhanced ?? undefined,
        text: row.text,
      });
      if (got.outcome !== row.expected)
        misses.push(
          `${row.expected} <- ${got.outcome} (${got.rule}): ${row.code} ${row.enhanced ?? ""} ${row.text.slice(0, 100)}`,
        );
    }
    const agreement = (corpus.rows.length - misses.length) / corpus.rows.length;
    console.log(
      `reply corpus: ${corpus.rows.length - misses.length}/${corpus.rows.length} agree (${(agreement * 100).toFixed(1)} %)`,
    );
    for (const m of misses) console.log(`  miss: ${m}`);
    assert.ok(agreement >= MIN_AGREEMENT, `agreement ${(agreement * 100).toFixed(1)} %`);
  });
});
