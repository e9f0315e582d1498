// CSV files as people's tools write them (ADR 0021): bytes in some encoding, a delimiter that
// depends on the spreadsheet's locale, and cells a spreadsheet would run as formulas.
import chardet from "chardet";
import iconv from "iconv-lite";

export interface DecodedText {
  text: string;
  /** The encoding the bytes were read as (iconv-lite's name). */
  encoding: string;
}

/** How sure the BOM-less UTF-16 test must be: the share of code units with a zero high byte. */
const UTF16_ZERO_SHARE = 0.3;

/** Which half of each 16-bit unit is mostly zero: ASCII text in UTF-16 without a byte order mark. */
function bomlessUtf16(bytes: Buffer): "utf-16le" | "utf-16be" | null {
  const units = Math.floor(Math.min(bytes.length, 4096) / 2);
  if (units < 2) return null;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < units; i++) {
    if (bytes[2 * i] === 0) evenZeros++;
    if (bytes[2 * i + 1] === 0) oddZeros++;
  }
  if (oddZeros / units >= UTF16_ZERO_SHARE && evenZeros === 0) return "utf-16le";
  if (evenZeros / units >= UTF16_ZERO_SHARE && oddZeros === 0) return "utf-16be";
  return null;
}

const isUtf8 = (bytes: Buffer) => {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/**
 * The text of a CSV file. A byte order mark decides (UTF-8, UTF-16 LE/BE); then bytes that are
 * valid UTF-8 are UTF-8 (ASCII included); then chardet's ranking: its best single-byte encoding
 * (ISO-8859-1 read as its superset Windows-1252, as browsers do) unless a multi-byte one is
 * confident; Windows-1252 when chardet has no answer. The mark is dropped.
 */
export function decodeCsvBytes(bytes: Buffer): DecodedText {
  let encoding: string;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) encoding = "utf-8";
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) encoding = "utf-16le";
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) encoding = "utf-16be";
  else encoding = bomlessUtf16(bytes) ?? (isUtf8(bytes) ? "utf-8" : guessLegacy(bytes));
  return { text: iconv.decode(bytes, encoding), encoding };
}

/** Enough text for chardet's letter statistics; reading a 5 MB file whole adds time, not certainty. */
const GUESS_SAMPLE_BYTES = 64 * 1024;

/** chardet ranks multi-byte encodings (Shift_JIS, Big5, ...) beside Latin ones when unsure (a
 *  German file with long ASCII runs scored Shift_JIS 10, ISO-8859-1 10): only a confident one wins. */
const MULTI_BYTE_MIN_CONFIDENCE = 50;
const SINGLE_BYTE = /^(iso-8859-\d+|windows-125\d)$/;

/** Western files are the common case (spreadsheets saving "CSV" on Windows): Windows-1252 is
 *  kept unless another single-byte encoding scores clearly better. */
const WESTERN_MARGIN = 10;

function guessLegacy(bytes: Buffer): string {
  const matches = chardet.analyse(bytes.subarray(0, GUESS_SAMPLE_BYTES));
  const western = matches.find((m) => /^(iso-8859-1|windows-1252)$/i.test(m.name));
  for (const match of matches) {
    const name = match.name.toLowerCase();
    if (name.startsWith("utf") || !iconv.encodingExists(name)) continue;
    if (SINGLE_BYTE.test(name)) {
      if (western && western.confidence + WESTERN_MARGIN >= match.confidence) return "windows-1252";
      return name === "iso-8859-1" ? "windows-1252" : name;
    }
    if (match.confidence >= MULTI_BYTE_MIN_CONFIDENCE) return name;
  }
  return "windows-1252";
}

const CSV_DELIMITERS = [",", ";", "\t", "|"] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

/** The delimiter the header row uses most often outside quotes (comma when it has none). */
export function detectDelimiter(text: string): CsvDelimiter {
  const counts = new Map<string, number>(CSV_DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  let started = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "\n" || char === "\r")) {
      if (started) break;
    } else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
    if (char !== "\n" && char !== "\r" && char !== "\ufeff") started = true;
  }
  let best: CsvDelimiter = ",";
  for (const d of CSV_DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}

/** Leading characters a spreadsheet reads as a formula or strips (OWASP "CSV Injection"). */
const FORMULA_START = /^'*[=+\-@\t\r]/;
const ESCAPED_FORMULA_START = /^'+[=+\-@\t\r]/;

/**
 * A cell a spreadsheet shows as text: NULs removed, and a leading single quote before a formula
 * character. A value that already starts with quotes then such a character gets one more quote,
 * so `unneutraliseCell` (which removes exactly one) gives every value back unchanged.
 */
export function neutraliseCell(value: string): string {
  const text = value.includes("\0") ? value.replaceAll("\0", "") : value;
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** The value `neutraliseCell` was given (for cells in our own exports and in other tools' alike). */
export function unneutraliseCell(cell: string): string {
  return ESCAPED_FORMULA_START.test(cell) ? cell.slice(1) : cell;
}
