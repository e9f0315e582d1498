// CSV import and export of leads. Import maps a header row to lead fields (common spellings
// accepted), puts unknown columns into customFields and remembers each record's line number so
// bad rows can be reported by line. Export streams the account's leads with their ratings.
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify";
import type { LeadsTable } from "../storage/schema.js";
import { toLeadView } from "./lead-view.js";
import type { LeadCreateInput } from "./leads.schemas.js";

export const MAX_IMPORT_ROWS = 10_000;

const FIELD_BY_HEADER: Record<string, keyof LeadCreateInput> = {
  email: "email",
  emailaddress: "email",
  mail: "email",
  website: "website",
  domain: "website",
  url: "website",
  site: "website",
  firstname: "firstName",
  first: "firstName",
  givenname: "firstName",
  lastname: "lastName",
  last: "lastName",
  surname: "lastName",
  familyname: "lastName",
  company: "company",
  companyname: "company",
  organization: "company",
  title: "title",
  jobtitle: "title",
  position: "title",
  phone: "phone",
  phonenumber: "phone",
  telephone: "phone",
  linkedin: "linkedIn",
  linkedinurl: "linkedIn",
  twitter: "twitter",
  campaign: "campaign",
  tags: "tags",
  notes: "notes",
  priority: "priority",
  leadservicecategory: "leadServiceCategory",
  category: "leadServiceCategory",
  leadservicesubcategory: "leadServiceSubcategory",
  subcategory: "leadServiceSubcategory",
};

const headerKey = (h: string) => h.toLowerCase().replace(/[^a-z0-9]/g, "");

export interface ParsedCsv {
  leads: LeadCreateInput[];
  /** Line number (1-based, in the file) where each lead's record starts. */
  lines: number[];
}

export type CsvParseResult =
  | { ok: true; value: ParsedCsv }
  | { ok: false; errors: { line: number | null; message: string }[] };

export function parseLeadsCsv(text: string): CsvParseResult {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: false,
      trim: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    const e = error as { message?: string; lines?: number };
    return {
      ok: false,
      errors: [{ line: e.lines ?? null, message: `malformed CSV: ${e.message ?? "parse error"}` }],
    };
  }
  const [header, ...rows] = records;
  if (!header)
    return { ok: false, errors: [{ line: 1, message: "the file is empty: expected a header row" }] };
  const columns = header.record.map((h) => ({ name: h, field: FIELD_BY_HEADER[headerKey(h)] }));
  if (!columns.some((c) => c.field === "email")) {
    return { ok: false, errors: [{ line: 1, message: "the header row has no email column" }] };
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
  for (const { record, info } of rows) {
    const lead: Record<string, unknown> = {};
    const custom: Record<string, string> = {};
    columns.forEach((col, i) => {
      const value = record[i] ?? "";
      if (value === "") return;
      if (!col.field) custom[col.name] = value;
      else if (col.field === "tags")
        lead.tags = value
          .split(/[;|]/)
          .map((t) => t.trim())
          .filter(Boolean);
      else lead[col.field] = value;
    });
    if (Object.keys(custom).length > 0) lead.customFields = custom;
    leads.push(lead as LeadCreateInput);
    // info.lines is the line the record ends on; a quoted field can span lines.
    lines.push(info.lines - (record.join("").split("\n").length - 1));
  }
  return { ok: true, value: { leads, lines } };
}

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
  "campaign",
  "tags",
  "priority",
  "status",
  "source",
  "validationStatus",
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
  "customFields",
  "validatedAt",
  "created",
  "updated",
] as const;

/** A CSV stream of the rows (one header line, then one line per lead). */
export function leadsCsvStream(rows: AsyncIterable<LeadsTable>) {
  // Booleans as words (csv-stringify's default writes true as 1 and false as ""), so an empty
  // cell means null ("not checked") and nothing else.
  const out = stringify({
    header: true,
    columns: [...EXPORT_COLUMNS],
    cast: { boolean: (value) => (value ? "true" : "false") },
  });
  (async () => {
    try {
      for await (const row of rows) {
        const v = toLeadView(row) as unknown as Record<string, unknown>;
        const record: Record<string, unknown> = {};
        for (const c of EXPORT_COLUMNS) {
          const value = v[c];
          if (c === "tags") record[c] = (value as string[]).join(";");
          else if (c === "ratingFactors")
            record[c] = (value as { code: string; points: number }[])
              .map((f) => `${f.code}:${f.points}`)
              .join(";");
          else if (c === "customFields")
            record[c] = Object.keys(value as object).length ? JSON.stringify(value) : "";
          else record[c] = value ?? "";
        }
        if (!out.write(record)) await new Promise((resolve) => out.once("drain", resolve));
      }
      out.end();
    } catch (error) {
      out.destroy(error as Error);
    }
  })();
  return out;
}
