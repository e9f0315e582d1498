// Pasted lists (emails or domains) as the import paths read them: one entry per line, or several
// on a line separated by commas. Spaces inside an entry are kept, so "jo @acme.com" is reported as
// one bad entry on its line rather than split into two. Each entry keeps its 1-based line number
// for the errors (docs/decisions/0016-imports-and-payments.md).
import { validationError } from "../lib/errors.js";

export interface PastedEntry {
  value: string;
  line: number;
}

const MAX_PASTED_ENTRIES = 10_000;

export function splitPastedList(text: string): PastedEntry[] {
  const entries: PastedEntry[] = [];
  text.split(/\r\n|\r|\n/).forEach((content, index) => {
    for (const part of content.split(",")) {
      const value = part.trim();
      if (value !== "") entries.push({ value, line: index + 1 });
    }
  });
  return entries;
}

/** A pasted list holds 1 to MAX_PASTED_ENTRIES entries (422 otherwise, nothing created). */
export function refuseEmptyOrHuge(count: number): void {
  if (count === 0) {
    throw validationError([{ field: "text", message: "the list has no entries", type: "minItems" }]);
  }
  if (count > MAX_PASTED_ENTRIES) {
    throw validationError([
      {
        field: "text",
        message: `at most ${MAX_PASTED_ENTRIES} entries per list, got ${count}`,
        type: "maxItems",
      },
    ]);
  }
}
