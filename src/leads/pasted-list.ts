// Pasted lists (emails or domains) as the import paths read them: one entry per line, or several
// on a line separated by commas. Spaces inside an entry are kept, so "jo @acme.com" is reported as
// one bad entry on its line rather than split into two. Each entry keeps its 1-based line number
// for the errors (docs/decisions/0016-imports-and-payments.md).

export interface PastedEntry {
  value: string;
  line: number;
}

export const MAX_PASTED_ENTRIES = 10_000;

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
