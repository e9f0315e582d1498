// Lead field mapping (spec "Lead", decisions §4): a create or update body checked and mapped to
// lead columns (normalization, customFields limits), a complete new row from a create body, and
// the per-item schema check of bulk bodies. Pure: no storage, no clock of its own.
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { normalizeEmailAddress } from "../checks/email/normalized-email.js";
import { parseEmail } from "../checks/email/syntax.js";
import type { FieldError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { findUnsafeText } from "../lib/safe-text.js";
import type { LeadsTable } from "../storage/schema.js";
import { LeadCreateBody, type LeadCreateInput, type LeadUpdateInput } from "./leads.schemas.js";

/** Bulk items are checked one by one so a bad item is reported, not fatal to the request. */
const leadItemChecker = TypeCompiler.Compile(LeadCreateBody);

export function itemSchemaErrors(item: unknown): string | undefined {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return "must be an object";
  // The request-wide check (src/http/request-guard.ts) cannot see an untyped bulk item's shape:
  // the item's own schema says which fields may hold line breaks (notes).
  const unsafe = findUnsafeText(item, LeadCreateBody, 5).map((e) => `${e.path.join(".")}: ${e.message}`);
  const errors = [...leadItemChecker.Errors(item)].slice(0, 5);
  if (errors.length === 0 && unsafe.length === 0) return undefined;
  return [
    ...unsafe,
    ...errors.map((e) => `${e.path.replace(/^\//, "").replaceAll("/", ".") || "item"}: ${messageOf(e)}`),
  ].join("; ");
}

/** TypeBox's "Expected union value" in the words the request validation uses (src/http/errors.ts):
 *  the allowed values of an enum, the accepted types of a nullable field, or the branch's own error. */
function messageOf(error: ValueError): string {
  if (error.type !== ValueErrorType.Union) return error.message;
  const branches = (error.schema.anyOf ?? []) as { const?: unknown; type?: string }[];
  const allowed = branches.filter((b) => b.const !== undefined).map((b) => String(b.const));
  if (allowed.length > 0) return `must be one of: ${allowed.join(", ")}`;
  // A nullable field (Type.Union([schema, Type.Null()])): a value of another type is told the
  // types; one of the right type hears what its branch says (too long, too short).
  const types = branches.map((b) => b.type).filter((t): t is string => typeof t === "string");
  const value = error.value;
  const valueType = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  if (types.length > 0 && !types.includes(valueType)) return `must be ${types.join(" or ")}`;
  const inner = error.errors.flatMap((branch) => [...branch]).find((e) => e.schema.type === valueType);
  return inner?.message ?? error.message;
}

const CUSTOM_FIELDS_MAX = 50;
const CUSTOM_FIELD_NAME_MAX = 100;
const CUSTOM_FIELD_VALUE_MAX_BYTES = 1024;

export type { WebsiteNormalizer } from "../checks/website/website.types.js";

import type { WebsiteNormalizer } from "../checks/website/website.types.js";

export type Editable = Partial<
  Pick<
    LeadsTable,
    | "email"
    | "email_lower"
    | "normalized_email"
    | "website"
    | "first_name"
    | "last_name"
    | "company"
    | "title"
    | "phone"
    | "linkedin"
    | "twitter"
    | "service_category"
    | "service_subcategory"
    | "campaign"
    | "tags"
    | "notes"
    | "priority"
    | "active"
  >
> & { customFields?: Record<string, unknown> | null };

export const pick = <T>(...values: (T | undefined)[]): T | undefined => values.find((v) => v !== undefined);

/** Checks and maps the editable fields of a create or update body; collects every field error. */
export function mapLeadFields(
  input: LeadUpdateInput,
  normalizeWebsite: WebsiteNormalizer,
  errors: FieldError[],
): Editable {
  const out: Editable = {};
  if (input.email !== undefined) {
    const parsed = parseEmail(input.email);
    if (!parsed.ok)
      errors.push({ field: "email", message: `invalid email: ${parsed.message}`, type: "format" });
    else {
      out.email = parsed.email;
      out.email_lower = parsed.email.toLowerCase();
      out.normalized_email = normalizeEmailAddress(parsed.email);
    }
  }
  const website = pick(input.website, input.domain);
  if (website === null || website === "") out.website = null;
  else if (website !== undefined) {
    const n = normalizeWebsite(website);
    if (n.ok) out.website = n.url;
    else errors.push({ field: "website", message: n.message, type: "format" });
  }
  const text: [keyof Editable, string | null | undefined][] = [
    ["first_name", pick(input.firstName, input.first_name)],
    ["last_name", pick(input.lastName, input.last_name)],
    ["company", input.company],
    ["title", input.title],
    ["phone", input.phone],
    ["linkedin", input.linkedIn],
    ["twitter", input.twitter],
    ["service_category", pick(input.leadServiceCategory, input.lead_service_category)],
    ["service_subcategory", pick(input.leadServiceSubcategory, input.lead_service_subcategory)],
    ["campaign", input.campaign],
    ["notes", input.notes],
  ];
  for (const [column, value] of text) {
    if (value !== undefined)
      (out as Record<string, unknown>)[column] = value === null ? null : value.trim() || null;
  }
  for (const [field, value] of [
    ["linkedIn", input.linkedIn],
    ["twitter", input.twitter],
  ] as const) {
    if (value && !/^(https?:\/\/)?[^\s/$.?#][^\s]*$/i.test(value)) {
      errors.push({ field, message: "must be a URL", type: "format" });
    }
  }
  if (input.tags !== undefined) out.tags = JSON.stringify(input.tags ?? []);
  if (input.priority !== undefined) out.priority = input.priority;
  if (input.status !== undefined) out.active = input.status ? 1 : 0;
  const custom = input.customFields !== undefined ? input.customFields : input.custom_fields;
  if (custom !== undefined) out.customFields = custom;
  return out;
}

export function checkCustomFields(fields: Record<string, unknown>, errors: FieldError[]): void {
  const keys = Object.keys(fields);
  if (keys.length > CUSTOM_FIELDS_MAX) {
    errors.push({
      field: "customFields",
      message: `at most ${CUSTOM_FIELDS_MAX} fields`,
      type: "maxProperties",
    });
  }
  for (const key of keys) {
    if (key.length === 0 || key.length > CUSTOM_FIELD_NAME_MAX) {
      errors.push({
        field: `customFields.${key.slice(0, 40)}`,
        message: `field names are 1-${CUSTOM_FIELD_NAME_MAX} characters`,
        type: "maxLength",
      });
    } else if (Buffer.byteLength(JSON.stringify(fields[key]) ?? "") > CUSTOM_FIELD_VALUE_MAX_BYTES) {
      errors.push({
        field: `customFields.${key}`,
        message: `serialized value is over ${CUSTOM_FIELD_VALUE_MAX_BYTES} bytes`,
        type: "maxLength",
      });
    }
  }
}

/** A complete new row from a create body, or the field errors. */
export function newLeadRow(
  accountId: string,
  input: LeadCreateInput,
  source: string,
  now: Date,
  normalizeWebsite: WebsiteNormalizer,
): { errors: FieldError[] } | { row: LeadsTable; validate: boolean } {
  const errors: FieldError[] = [];
  const fields = mapLeadFields(input, normalizeWebsite, errors);
  const customFields = fields.customFields ?? {};
  checkCustomFields(customFields, errors);
  if (errors.length > 0) return { errors };
  const at = now.toISOString();
  const validate = input.validate !== false;
  const row: LeadsTable = {
    id: newId("lead", now.getTime()),
    account_id: accountId,
    email: fields.email!,
    email_lower: fields.email_lower!,
    normalized_email: fields.normalized_email!,
    website: fields.website ?? null,
    first_name: fields.first_name ?? null,
    last_name: fields.last_name ?? null,
    company: fields.company ?? null,
    title: fields.title ?? null,
    phone: fields.phone ?? null,
    linkedin: fields.linkedin ?? null,
    twitter: fields.twitter ?? null,
    service_category: fields.service_category ?? null,
    service_subcategory: fields.service_subcategory ?? null,
    campaign: fields.campaign ?? null,
    tags: fields.tags ?? "[]",
    notes: fields.notes ?? null,
    priority: fields.priority ?? "normal",
    active: fields.active ?? 1,
    custom_fields: JSON.stringify(customFields),
    source: input.source ?? source,
    metadata: JSON.stringify({ validate }),
    validation_status: "new",
    rating: 0,
    recommendation: "skip",
    quality: "poor",
    rating_factors: "[]",
    email_valid: null,
    email_catch_all: null,
    email_disposable: null,
    email_service: null,
    email_score: null,
    email_type: null,
    email_risk: null,
    email_status: null,
    email_reason: null,
    domain_status: null,
    domain_http_status: null,
    domain_final_url: null,
    domain_ssl_valid: null,
    domain_parked: null,
    website_parked_kind: null,
    website_parked_evidence: null,
    domain_response_time_ms: null,
    domain_score: null,
    domain_age_days: null,
    domain_listed: null,
    did_you_mean: null,
    domain_intel: null,
    validation_details: null,
    validated_at: null,
    archived_at: null,
    created_at: at,
    updated_at: at,
  };
  return { row, validate };
}
