// Text that storage can hold and people can read (ADR 0021): PostgreSQL refuses NUL in text and
// JSON values (a 500 before this check), SQLite stores it, and a lone UTF-16 surrogate is turned
// into U+FFFD on the way to either, so the stored text would silently differ from what was sent.
// So every string of a request is checked before validation: NUL, the other C0 controls and
// unpaired surrogates are refused anywhere; tab, LF and CR only in fields whose schema says
// `x-multiline` (notes, pasted lists) or carries no shape of its own (free-form customFields).

/** Schema annotation: this string field may hold tabs and line breaks. */
export const MULTILINE = "x-multiline";

export interface UnsafeText {
  /** JSON path inside the checked value: property names and array indexes. */
  path: (string | number)[];
  message: string;
  type: "control_character" | "line_break" | "unpaired_surrogate";
}

type Schema = Record<string, unknown> | undefined;

const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;

const BREAK_NAMES: Record<number, string> = { 9: "a tab", 10: "a line break", 13: "a carriage return" };

/** Why this text cannot be stored, or null. `multiline` lets tab, LF and CR through. */
export function unsafeTextReason(text: string, multiline: boolean): Omit<UnsafeText, "path"> | null {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20) {
      if (BREAK_NAMES[code] !== undefined) {
        if (multiline) continue;
        return {
          message: `contains ${BREAK_NAMES[code]} (${hex(code)}); only multi-line fields such as notes accept one`,
          type: "line_break",
        };
      }
      return {
        message:
          code === 0 ? "contains a NUL character (U+0000)" : `contains the control character ${hex(code)}`,
        type: "control_character",
      };
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return { message: `contains an unpaired UTF-16 surrogate (${hex(code)})`, type: "unpaired_surrogate" };
    }
  }
  return null;
}

/** The branch of a union (TypeBox Nullable, Union) that describes a value of this JSON kind. */
function branchFor(schema: Schema, kind: "string" | "object" | "array"): Schema | "free" {
  if (!schema || typeof schema !== "object") return "free";
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(union)) {
    for (const branch of union) {
      const found = branchFor(branch, kind);
      if (found !== undefined && (found === "free" || found.type === kind || found.const !== undefined))
        return found;
    }
    return undefined;
  }
  if (schema.type === undefined && schema.const === undefined && schema.enum === undefined) return "free";
  return schema;
}

const patterns = new Map<string, RegExp>();
/** Schemas are few and fixed (the routes'), so their patterns are compiled once. */
function patternOf(source: string): RegExp {
  const known = patterns.get(source);
  if (known) return known;
  const pattern = new RegExp(source, "u");
  patterns.set(source, pattern);
  return pattern;
}

function propertySchema(schema: Schema, key: string): Schema {
  if (!schema) return undefined;
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (properties && Object.hasOwn(properties, key)) return properties[key];
  const patterns = schema.patternProperties as Record<string, Schema> | undefined;
  for (const [pattern, sub] of Object.entries(patterns ?? {})) if (patternOf(pattern).test(key)) return sub;
  return typeof schema.additionalProperties === "object"
    ? (schema.additionalProperties as Schema)
    : undefined;
}

/** A C0 control or any UTF-16 surrogate (paired ones too: the full walk tells them apart). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const SUSPECT = /[\u0000-\u001f\ud800-\udfff]/;

/** Whether any string or property name in the value holds a character unsafeTextReason() may refuse. */
function mayHoldUnsafeText(value: unknown): boolean {
  if (typeof value === "string") return SUSPECT.test(value);
  if (value === null || typeof value !== "object" || Buffer.isBuffer(value)) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (mayHoldUnsafeText(item)) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (SUSPECT.test(key) || mayHoldUnsafeText((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/**
 * Every unsafe string in a parsed JSON value (at most `max`), property names included, walking the
 * value beside its JSON schema to learn which strings are multi-line. Parts the schema does not
 * describe are free-form: their strings may hold tabs and line breaks, never NUL or other controls.
 */
export function findUnsafeText(value: unknown, schema: unknown, max = 20): UnsafeText[] {
  // Almost every request holds no control character and no surrogate at all: one scan of its
  // strings with a regular expression says so, without walking the schema (ADR 0082).
  if (!mayHoldUnsafeText(value)) return [];
  const found: UnsafeText[] = [];
  const walk = (v: unknown, s: Schema | "free", path: (string | number)[]) => {
    if (found.length >= max) return;
    const shape = s === "free" ? undefined : s;
    if (typeof v === "string") {
      const branch = shape === undefined ? "free" : branchFor(shape, "string");
      const multiline = branch === "free" || branch?.[MULTILINE] === true;
      const reason = unsafeTextReason(v, multiline);
      if (reason) found.push({ path, ...reason });
    } else if (Array.isArray(v)) {
      const branch = shape === undefined ? "free" : branchFor(shape, "array");
      const items = branch === "free" ? "free" : ((branch?.items as Schema) ?? "free");
      for (const [i, item] of v.entries()) walk(item, items, [...path, i]);
    } else if (v !== null && typeof v === "object" && !Buffer.isBuffer(v)) {
      const branch = shape === undefined ? "free" : branchFor(shape, "object");
      for (const [key, item] of Object.entries(v)) {
        const reason = unsafeTextReason(key, false);
        if (reason && found.length < max)
          found.push({ path: [...path, key], ...reason, message: `the field name ${reason.message}` });
        walk(item, branch === "free" ? "free" : (propertySchema(branch, key) ?? "free"), [...path, key]);
      }
    }
  };
  walk(value, (schema as Schema) ?? "free", []);
  return found;
}
