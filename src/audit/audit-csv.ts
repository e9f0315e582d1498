// CSV of audit entries. Cells a spreadsheet would read as a formula (OWASP "CSV injection":
// a leading = + - @, tab or carriage return) get a leading single quote, then RFC 4180 quoting.

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(cells: (string | number | null)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
