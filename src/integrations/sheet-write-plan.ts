// What a write-back to a sheet may touch, computed from the sheet as re-read just before writing:
// our five columns (added at the right of the header when missing, found by header wherever the
// user moved them), and in them only the rows whose email has a verdict. A row inserted or sorted
// since the import is matched by its email, not its position, so it never gets another lead's
// verdict. A row that already shows its verdict is marked, so a resumed pass does not write it a
// second time. No other cell is ever in the plan. Pure: no I/O.
import { foldHeader } from "./sheet-mapping.js";

const LEADCHECK_COLUMNS = [
  "leadcheck_status",
  "leadcheck_reason",
  "leadcheck_score",
  "leadcheck_recommendation",
  "leadcheck_verified_at",
] as const;

/** Our five values for a lead, in LEADCHECK_COLUMNS order; a value we do not know is "unknown". */
export type VerdictCells = [string, string, string, string, string];

export interface SheetWrite {
  range: string;
  values: string[][];
}

export interface SheetWritePlan {
  /** The header cells of our missing columns (first chunk only), or none. */
  header: SheetWrite | null;
  /** One write per matched row (its run of our columns), in sheet order. `holds`: the row already
   *  shows exactly these values (an earlier attempt wrote them and died before recording it), so
   *  writing them again would change nothing. */
  rows: { email: string; writes: SheetWrite[]; holds: boolean }[];
}

export function quoteSheet(title: string): string {
  return `'${title.replaceAll("'", "''")}'`;
}

function columnLetters(index: number): string {
  let letters = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

export function planSheetWrite(
  sheet: string,
  rows: string[][],
  emailColumn: number,
  verdictFor: (email: string) => VerdictCells | undefined,
): SheetWritePlan {
  const header = rows[0] ?? [];
  const folded = header.map(foldHeader);
  const columns: number[] = [];
  const missing: string[] = [];
  let next = header.length;
  while (next > 0 && (header[next - 1] ?? "").trim() === "") next--;
  for (const name of LEADCHECK_COLUMNS) {
    const found = folded.indexOf(foldHeader(name));
    if (found >= 0) columns.push(found);
    else {
      columns.push(next++);
      missing.push(name);
    }
  }
  const firstNew = next - missing.length;
  const headerWrite =
    missing.length === 0
      ? null
      : {
          range: `${quoteSheet(sheet)}!${columnLetters(firstNew)}1:${columnLetters(next - 1)}1`,
          values: [missing],
        };
  const planned: SheetWritePlan["rows"] = [];
  for (let r = 1; r < rows.length; r++) {
    const email = (rows[r]?.[emailColumn] ?? "").trim();
    if (!email) continue;
    const cells = verdictFor(email);
    if (!cells) continue;
    const row = rows[r] ?? [];
    const holds = missing.length === 0 && columns.every((column, i) => (row[column] ?? "") === cells[i]);
    planned.push({
      email,
      holds,
      writes: runs(columns, cells).map((run) => ({
        range: `${quoteSheet(sheet)}!${columnLetters(run.start)}${r + 1}:${columnLetters(run.start + run.values.length - 1)}${r + 1}`,
        values: [run.values],
      })),
    });
  }
  return { header: headerWrite, rows: planned };
}

/** Our columns grouped into runs of adjacent cells (one range each). */
function runs(columns: number[], cells: VerdictCells): { start: number; values: string[] }[] {
  const order = columns
    .map((column, i) => ({ column, value: cells[i]! }))
    .sort((a, b) => a.column - b.column);
  const out: { start: number; values: string[] }[] = [];
  for (const { column, value } of order) {
    const last = out.at(-1);
    if (last && last.start + last.values.length === column) last.values.push(value);
    else out.push({ start: column, values: [value] });
  }
  return out;
}
