// CSV import of leads (ADR 0021). The file's encoding and delimiter are detected; the header row
// maps to lead fields (common spellings accepted) and unknown columns become customFields; each
// record keeps the line it starts on, so bad rows and parse errors are reported by their real
// line. Our own export (lead-csv-export.ts) re-imports to the same leads: its computed columns
// are skipped, its `customFields.<name>` columns are custom fields, its neutralised cells lose
// their quote.
import { CsvError, parse } from "csv-parse/sync";
import { decodeCsvBytes, detectDelimiter, unneutraliseCell } from "../lib/csv-text.js";
import { FIELD_BY_HEADER, headerKey, MAX_IMPORT_ROWS } from "./csv-headers.js";
import type { LeadCreateInput } from "./leads.schemas.js";

interface ParsedCsv {
  leads: LeadCreateInput[];
  /** Line number (1-based, in the file) where each lead's record starts. */
  lines: number[];
  encoding: string;
  delimiter: string;
}

export type CsvParseResult =
  | { ok: true; value: ParsedCsv }
  | { ok: false; errors: { line: number | null; message: string }[] };

/** The columns of our export (lead-csv-export.ts), custom fields' columns after them. */
export const EXPORT_COLUMNS = [
  "id",
  "email",
  "website",
  "firstName",
  "lastName",
  "company",
  "title",
  "phone",
  "linkedIn",
  "twitter",
  "leadServiceCategory",
  "leadServiceSubcategory",
  "campaign",
  "tags",
  "notes",
  "priority",
  "status",
  "source",
  "validationStatus",
  "emailStatus",
  "emailReason",
  "emailReasonLabel",
  "didYouMean",
  "leadDeliverabilityRating",
  "leadRecommendation",
  "leadQuality",
  "emailValid",
  "emailCatchAll",
  "emailDisposable",
  "emailService",
  "emailScore",
  "emailType",
  "emailRisk",
  "domainHttpStatus",
  "domainFinalUrl",
  "domainSslValid",
  "domainParked",
  "domainResponseTimeMs",
  "domainScore",
  "ratingFactors",
  "validatedAt",
  "created",
  "updated",
] as const;

/** Columns of our export that a user may edit and re-import; the others are computed. */
const EDITABLE_EXPORT_COLUMNS = [
  "email",
  "website",
  "firstName",
  "lastName",
  "company",
  "title",
  "phone",
  "linkedIn",
  "twitter",
  "leadServiceCategory",
  "leadServiceSubcategory",
  "campaign",
  "tags",
  "notes",
  "priority",
  "status",
] as const;

/** Header cells that make a file our export: its computed columns are then skipped on import. */
const EXPORT_MARKERS = ["id", "validationStatus", "leadDeliverabilityRating"];

/** Prefix of a custom field's column when its name alone would read as a lead field. */
export const CUSTOM_COLUMN_PREFIX = "customFields.";

/** Whether a custom field named so must be exported under CUSTOM_COLUMN_PREFIX to re-import as one. */
export function customNeedsPrefix(name: string, exportColumns: readonly string[] = EXPORT_COLUMNS): boolean {
  return (
    name.startsWith(CUSTOM_COLUMN_PREFIX) ||
    FIELD_BY_HEADER[headerKey(name)] !== undefined ||
    exportColumns.some((c) => headerKey(c) === headerKey(name))
  );
}

type Column =
  | { kind: "field"; field: keyof LeadCreateInput }
  | { kind: "custom"; name: string }
  | { kind: "customJson" }
  | { kind: "active" }
  | { kind: "skip" };

function columnsOf(header: string[], exportColumns: readonly string[]): Column[] {
  const isOurExport = EXPORT_MARKERS.every((m) => header.includes(m));
  const editable = new Set<string>(EDITABLE_EXPORT_COLUMNS);
  const computed = new Set(exportColumns.filter((c) => !editable.has(c)));
  return header.map((name): Column => {
    if (name.startsWith(CUSTOM_COLUMN_PREFIX) && name.length > CUSTOM_COLUMN_PREFIX.length)
      return { kind: "custom", name: name.slice(CUSTOM_COLUMN_PREFIX.length) };
    if (isOurExport) {
      if (name === "status") return { kind: "active" };
      // Exports before ADR 0021 wrote every custom field as one JSON column.
      if (name === "customFields") return { kind: "customJson" };
      if (computed.has(name)) return { kind: "skip" };
    }
    const field = FIELD_BY_HEADER[headerKey(name)];
    return field ? { kind: "field", field } : { kind: "custom", name };
  });
}

/** A human sentence for csv-parse's error codes. */
function parseErrorSentence(code: string | undefined, opensQuote: boolean, raw: string): string {
  const closingQuote =
    code === "CSV_INVALID_CLOSING_QUOTE" || code === "CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE";
  if (opensQuote && (code === "CSV_QUOTE_NOT_CLOSED" || closingQuote)) return "a quoted field is not closed";
  if (closingQuote)
    return 'a quoted field has text after its closing quote (write a quote inside a quoted field as "")';
  switch (code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return "a quoted field is not closed";
    case "INVALID_OPENING_QUOTE":
      return 'a quote appears inside an unquoted field (quote the whole field and write the quote as "")';
    case "CSV_RECORD_INCONSISTENT_FIELDS_LENGTH":
    case "CSV_RECORD_INCONSISTENT_COLUMNS":
      return `the row has a different number of fields than the header (${raw})`;
    default:
      return "the row cannot be read as CSV";
  }
}

type Parsed = { record: string[]; info: { bytes: number } };

/**
 * Line numbers as an editor shows them (CRLF, LF or a lone CR is one break) for byte offsets of
 * the UTF-8 text csv-parse reads. Its own `lines` counts a CRLF inside a quoted field twice, so
 * every row after a multi-line note of a Windows file was reported a line too far on.
 */
class LineIndex {
  /** Byte offset where each line starts; line n (1-based) starts at starts[n - 1]. */
  private readonly starts: number[] = [0];

  constructor(private readonly bytes: Buffer) {
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a) i++;
      if (bytes[i] === 0x0a || bytes[i] === 0x0d) this.starts.push(i + 1);
    }
  }

  /** The 1-based line holding the byte at `offset`. */
  lineAt(offset: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  }

  /** The first line from `offset` on that is not empty (empty lines between records are skipped). */
  firstFilledLineFrom(offset: number): number {
    let line = this.lineAt(offset);
    while (line < this.starts.length && this.isEmpty(line)) line++;
    return line;
  }

  textOf(line: number): string {
    return this.bytes.subarray(this.starts[line - 1] ?? this.bytes.length, this.starts[line]).toString();
  }

  private isEmpty(line: number): boolean {
    const first = this.bytes[this.starts[line - 1]!];
    return first === 0x0a || first === 0x0d;
  }
}

/**
 * Leads from a CSV file (bytes in any supported encoding, or text). `exportColumns` are our
 * export's columns, so a re-imported export skips the computed ones.
 */
export function parseLeadsCsv(
  input: Buffer | string,
  exportColumns: readonly string[] = EXPORT_COLUMNS,
): CsvParseResult {
  const { text, encoding } =
    typeof input === "string" ? { text: input, encoding: "utf-8" } : decodeCsvBytes(input);
  const delimiter = detectDelimiter(text);
  const lineIndex = new LineIndex(Buffer.from(text));
  // Where the last complete record ended (a byte offset): a parse error belongs to the next record.
  let lastEnd = 0;
  let records: Parsed[];
  try {
    records = parse(text, {
      bom: true,
      info: true,
      delimiter,
      // Files stitched together from several tools mix line endings.
      record_delimiter: ["\r\n", "\n", "\r"],
      skip_empty_lines: true,
      relax_column_count: false,
      trim: true,
      on_record: (record: string[], context: { bytes: number }) => {
        lastEnd = context.bytes;
        return record;
      },
    }) as unknown as Parsed[];
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const line = lineIndex.firstFilledLineFrom(lastEnd);
    // An odd number of quotes on the record's first line: a quoted field runs on past it, and
    // the parser stopped wherever the next quote happened to be.
    const opensQuote = (lineIndex.textOf(line).match(/"/g)?.length ?? 0) % 2 === 1;
    const found = /expect \d+, got \d+/.exec(error.message)?.[0]?.replace("expect", "expected") ?? "";
    const sentence = parseErrorSentence(error.code, opensQuote, found);
    return { ok: false, errors: [{ line, message: `line ${line}: ${sentence}` }] };
  }
  const [header, ...rows] = records;
  if (!header)
    return { ok: false, errors: [{ line: 1, message: "the file is empty: expected a header row" }] };
  const headerCells = header.record.map(unneutraliseCell);
  const columns = columnsOf(headerCells, exportColumns);
  if (!columns.some((c) => c.kind === "field" && c.field === "email")) {
    return {
      ok: false,
      errors: [
        {
          line: 1,
          message: `the header row has no email column (columns read: ${headerCells.slice(0, 8).join(" | ")})`,
        },
      ],
    };
  }
  if (rows.length === 0) return { ok: false, errors: [{ line: 2, message: "the file has no data rows" }] };
  if (rows.length > MAX_IMPORT_ROWS) {
    return {
      ok: false,
      errors: [{ line: null, message: `at most ${MAX_IMPORT_ROWS} rows per import, got ${rows.length}` }],
    };
  }
  const leads: LeadCreateInput[] = [];
  const lines: number[] = [];
  let previousEnd = header.info.bytes;
  for (const { record, info } of rows) {
    leads.push(leadOf(record, columns));
    // A record starts where the previous one ended, after any empty lines.
    lines.push(lineIndex.firstFilledLineFrom(previousEnd));
    previousEnd = info.bytes;
  }
  return { ok: true, value: { leads, lines, encoding, delimiter } };
}

function leadOf(record: string[], columns: Column[]): LeadCreateInput {
  const lead: Record<string, unknown> = {};
  const custom: Record<string, string> = {};
  columns.forEach((col, i) => {
    const value = unneutraliseCell(record[i] ?? "");
    if (value === "") return;
    if (col.kind === "custom") custom[col.name] = value;
    else if (col.kind === "customJson") Object.assign(custom, jsonObjectOf(value));
    else if (col.kind === "active") lead.status = value.toLowerCase() !== "false";
    else if (col.kind === "field" && col.field === "tags")
      lead.tags = value
        .split(/[;|]/)
        .map((t) => t.trim())
        .filter(Boolean);
    else if (col.kind === "field") lead[col.field] = value;
  });
  if (Object.keys(custom).length > 0) lead.customFields = custom;
  return lead as LeadCreateInput;
}

function jsonObjectOf(text: string): Record<string, string> {
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value !== "object" || Array.isArray(value)) return {};
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
    );
  } catch {
    return {};
  }
}
