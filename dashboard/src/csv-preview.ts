// What the Import page knows about a CSV file before it is sent: its size and row count against
// the API's limits, the delimiter, which column becomes which lead field (the API's own header
// spellings, src/leads/csv-headers.ts) and the first rows. Parsing here is for the preview only:
// the API parses the file again and decides.
import { FIELD_BY_HEADER, headerKey, MAX_IMPORT_ROWS } from "../../src/leads/csv-headers.js";

/** The header spellings the preview maps (the API's own table). */
export { FIELD_BY_HEADER };

/** The API's limits on one import: MAX_IMPORT_ROWS and the request body limit (MAX_BODY_BYTES). */
export const IMPORT_LIMITS = { rows: MAX_IMPORT_ROWS, bytes: 5 * 1024 * 1024 } as const;

export const FIELD_LABELS: Record<string, string> = {
  email: "Email",
  website: "Website",
  firstName: "First name",
  lastName: "Last name",
  company: "Company",
  title: "Job title",
  phone: "Phone",
  linkedIn: "LinkedIn",
  twitter: "Twitter",
  campaign: "Campaign",
  tags: "Tags",
  notes: "Notes",
  priority: "Priority",
  leadServiceCategory: "Category",
  leadServiceSubcategory: "Subcategory",
};

const fieldOfHeader = (header: string): string | null => FIELD_BY_HEADER[headerKey(header)] ?? null;

/** A file to start from: every field the API maps, and one example row. */
export const TEMPLATE_CSV =
  [
    "email,website,first_name,last_name,company,title,phone,linkedin,campaign,tags,notes",
    "jane.doe@example.com,example.com,Jane,Doe,Example Inc.,Head of Sales,+1 555 0100,https://www.linkedin.com/in/janedoe,spring,vip;partner,Met at the fair",
  ].join("\r\n") + "\r\n";

const DELIMITERS = [",", ";", "\t", "|"] as const;
type Delimiter = (typeof DELIMITERS)[number];
export const DELIMITER_NAMES: Record<Delimiter, string> = {
  ",": "commas",
  ";": "semicolons",
  "\t": "tabs",
  "|": "vertical bars",
};

/** The delimiter the header line uses most, outside quotes (a comma when none appears). */
function detectDelimiter(text: string): Delimiter {
  const counts = new Map<string, number>();
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === "\n" || ch === "\r")) break;
    else if (!quoted && (DELIMITERS as readonly string[]).includes(ch))
      counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  let best: Delimiter = ",";
  for (const d of DELIMITERS) if ((counts.get(d) ?? 0) > (counts.get(best) ?? 0)) best = d;
  return best;
}

/** RFC 4180 records: quoted fields may hold the delimiter, quotes ("") and line breaks; blank lines
 *  are skipped. Stops after `maxRecords` (the row count still covers the whole file). */
function parseCsv(
  text: string,
  delimiter: Delimiter,
  maxRecords = Number.POSITIVE_INFINITY,
): { records: string[][]; count: number; unclosedQuote: boolean } {
  const records: string[][] = [];
  let count = 0;
  let record: string[] = [];
  let field = "";
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const end = () => {
    record.push(field);
    field = "";
    if (record.length > 1 || record[0] !== "") {
      count++;
      if (records.length < maxRecords) records.push(record.map((f) => f.trim()));
    }
    record = [];
  };
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === delimiter) {
      record.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      end();
    } else field += ch;
  }
  if (field !== "" || record.length > 0) end();
  return { records, count, unclosedQuote: quoted };
}

export interface CsvPreview {
  delimiter: Delimiter;
  columns: { header: string; field: string | null }[];
  /** The first data rows. */
  rows: string[][];
  /** Data rows in the whole file (the header not counted). */
  rowCount: number;
  hasEmail: boolean;
  unclosedQuote: boolean;
}

export function previewCsv(text: string, sample = 5): CsvPreview {
  const delimiter = detectDelimiter(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  const { records, count, unclosedQuote } = parseCsv(text, delimiter, sample + 1);
  const [header = [], ...rows] = records;
  const columns = header.map((h) => ({ header: h, field: fieldOfHeader(h) }));
  return {
    delimiter,
    columns,
    rows,
    rowCount: Math.max(0, count - 1),
    hasEmail: columns.some((c) => c.field === "email"),
    unclosedQuote,
  };
}
