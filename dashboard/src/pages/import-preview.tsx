// Before a CSV is sent: the file against the API's limits, the column mapping with its first rows,
// and, for a validated import, what it will cost against the balance.
import type { CreditBalance } from "../../../sdk/src/api-types.js";
import { DataTable } from "../components/data-table.js";
import { download, formatNumber, plural } from "../components/ui.js";
import {
  type CsvPreview,
  DELIMITER_NAMES,
  FIELD_LABELS,
  IMPORT_LIMITS,
  TEMPLATE_CSV,
} from "../csv-preview.js";
import { PRICES } from "../pricing.js";
import { Link } from "../router.js";

const MB = 1024 * 1024;
const formatBytes = (bytes: number): string =>
  bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${formatNumber(Math.ceil(bytes / 1024))} KB`;

export function ImportLimits() {
  return (
    <p className="muted" data-testid="import-limits">
      Up to {formatNumber(IMPORT_LIMITS.rows)} rows and {IMPORT_LIMITS.bytes / MB} MB per file.{" "}
      <button
        type="button"
        className="link-button"
        onClick={() => download("leadcheck-import-template.csv", TEMPLATE_CSV)}
        data-testid="download-template"
      >
        Download a template CSV
      </button>
    </p>
  );
}

/** Why the file cannot be sent as it is, or null. */
export function fileProblem(size: number, preview: CsvPreview | null): string | null {
  if (size > IMPORT_LIMITS.bytes)
    return `The file is ${formatBytes(size)}; the limit is ${IMPORT_LIMITS.bytes / MB} MB. Split it into smaller files.`;
  if (!preview) return null;
  if (preview.unclosedQuote) return "A quoted field is not closed: check the file's quotes.";
  if (preview.columns.length === 0) return "The file is empty: expected a header row.";
  if (!preview.hasEmail) return "The header row has no email column (email, e-mail address or mail).";
  if (preview.rowCount === 0) return "The file has a header row but no leads.";
  if (preview.rowCount > IMPORT_LIMITS.rows)
    return `The file has ${formatNumber(preview.rowCount)} rows; the limit is ${formatNumber(IMPORT_LIMITS.rows)}. Split it into smaller files.`;
  return null;
}

export function MappingPreview({ preview, size }: { preview: CsvPreview; size: number }) {
  const rows = preview.rows.map((cells, index) => ({ index, cells }));
  return (
    <div data-testid="csv-preview">
      <p data-testid="csv-summary">
        {plural(preview.rowCount, "row")} · {formatBytes(size)} · separated by{" "}
        {DELIMITER_NAMES[preview.delimiter]}
      </p>
      <ul className="mapping" aria-label="Column mapping" data-testid="csv-mapping">
        {preview.columns.map((c, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a header may repeat; its position is its identity
          <li key={i} data-field={c.field ?? "custom"}>
            <strong>{c.header || "(no name)"}</strong> →{" "}
            {c.field ? FIELD_LABELS[c.field] : <span className="muted">custom field</span>}
          </li>
        ))}
      </ul>
      {rows.length > 0 ? (
        <DataTable
          label={`The first ${plural(rows.length, "row")} of the file`}
          rows={rows}
          rowKey={(r) => String(r.index)}
          testId="csv-preview-rows"
          rowTestId="csv-preview-row"
          columns={preview.columns.map((c, i) => ({
            key: String(i),
            header: c.field ? FIELD_LABELS[c.field]! : c.header || "(no name)",
            primary: c.field === "email",
            cell: (r: { index: number; cells: string[] }) => r.cells[i] ?? "",
          }))}
        />
      ) : null}
    </div>
  );
}

export function CostEstimate({ rows, balance }: { rows: number; balance: CreditBalance | undefined }) {
  const cost = rows * PRICES.leadCreateWithValidation;
  const enough = balance ? balance.displayCredits >= cost : null;
  return (
    <p className={enough === false ? "alert" : "info"} data-testid="cost-estimate">
      Validating {plural(rows, "lead")} costs <strong>{plural(cost, "credit")}</strong> (
      {plural(PRICES.leadCreateWithValidation, "credit")} per lead at the standard prices).{" "}
      {balance === undefined
        ? null
        : enough
          ? `Your balance of ${plural(balance.displayCredits, "credit")} covers it.`
          : `Your balance is ${plural(balance.displayCredits, "credit")}: ${plural(cost - balance.displayCredits, "credit")} short, so the import would be refused. `}
      {enough === false ? (
        <>
          <Link to="/credits">Add credits</Link> or import without validation.
        </>
      ) : null}
    </p>
  );
}
