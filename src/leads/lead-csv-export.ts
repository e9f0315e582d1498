// CSV export of leads (ADR 0021): safe to open in a spreadsheet and re-importable to the same
// leads. Every text cell is neutralised (NULs dropped, a quote before a leading = + - @ tab or
// CR), which the importer undoes; custom fields are columns of their own, named as the field
// (prefixed `customFields.` only where the name alone would read as a lead column); the verdict,
// its reason in codes and in the vocabulary's words, didYouMean and validatedAt are columns too.
import { stringify } from "csv-stringify";
import { reasonLabel } from "../checks/vocabulary.js";
import { neutraliseCell } from "../lib/csv-text.js";
import type { LeadsTable } from "../storage/schema.js";
import { CUSTOM_COLUMN_PREFIX, customNeedsPrefix, EXPORT_COLUMNS } from "./lead-csv.js";
import { toLeadView } from "./lead-view.js";

/** The custom field names of these leads, in the order they first appear. */
export async function customFieldNamesOf(rows: AsyncIterable<Pick<LeadsTable, "custom_fields">>) {
  const names = new Set<string>();
  for await (const row of rows) {
    for (const name of Object.keys(JSON.parse(row.custom_fields || "{}") as object)) names.add(name);
  }
  return [...names];
}

const cellOf = (value: unknown): string | number => {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return value;
  // Booleans as words (csv-stringify's default writes true as 1 and false as ""), so an empty
  // cell means null ("not checked") and nothing else.
  if (typeof value === "boolean") return value ? "true" : "false";
  return neutraliseCell(typeof value === "string" ? value : JSON.stringify(value));
};

/** A CSV stream of the rows: one header line, then one line per lead. */
export function leadsCsvStream(rows: AsyncIterable<LeadsTable>, customFieldNames: readonly string[] = []) {
  const customColumns = customFieldNames.map((name) => ({
    name,
    header: customNeedsPrefix(name, EXPORT_COLUMNS) ? `${CUSTOM_COLUMN_PREFIX}${name}` : name,
  }));
  const out = stringify({ header: false });
  (async () => {
    try {
      out.write([...EXPORT_COLUMNS, ...customColumns.map((c) => c.header)].map(cellOf));
      for await (const row of rows) {
        const view = toLeadView(row) as unknown as Record<string, unknown>;
        const cells = EXPORT_COLUMNS.map((column) => {
          const value = view[column];
          if (column === "tags") return cellOf((value as string[]).join(";"));
          if (column === "emailReasonLabel") return cellOf(reasonLabel(view.emailReason as string | null));
          if (column === "ratingFactors")
            return cellOf(
              (value as { code: string; points: number }[]).map((f) => `${f.code}:${f.points}`).join(";"),
            );
          return cellOf(value);
        });
        const custom = view.customFields as Record<string, unknown>;
        for (const c of customColumns) cells.push(cellOf(custom[c.name]));
        if (!out.write(cells)) await new Promise((resolve) => out.once("drain", resolve));
      }
      out.end();
    } catch (error) {
      out.destroy(error as Error);
    }
  })();
  return out;
}
