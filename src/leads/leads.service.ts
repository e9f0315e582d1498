// Lead rules (spec "Lead", decisions §4): normalization, case-insensitive duplicate refusal,
// customFields limits and merge, null clearing, archive as soft delete, credits charged upfront
// for validation, lead.created / lead.updated events.
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { Transaction } from "kysely";
import { parseEmail } from "../checks/email/syntax.js";
import type { CreditsService } from "../credits/credits.service.js";
import type { EventBus } from "../events/events.js";
import type { Clock } from "../lib/clock.js";
import { AppError, type FieldError, notFound, paymentRequired, validationError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import type { LeadsTable, Schema } from "../storage/schema.js";
import { toLeadView } from "./lead-view.js";
import { type LeadFilter, LeadsRepo, prepareLiveLeadById } from "./leads.repo.js";
import {
  LeadCreateBody,
  type LeadCreateInput,
  type LeadListInput,
  type LeadUpdateInput,
  type LeadView,
} from "./leads.schemas.js";

/** Bulk items are checked one by one so a bad item is reported, not fatal to the request. */
const leadItemChecker = TypeCompiler.Compile(LeadCreateBody);

function itemSchemaErrors(item: unknown): string | undefined {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return "must be an object";
  const errors = [...leadItemChecker.Errors(item)].slice(0, 5);
  if (errors.length === 0) return undefined;
  return errors
    .map((e) => `${e.path.replace(/^\//, "").replaceAll("/", ".") || "item"}: ${e.message}`)
    .join("; ");
}

export const CUSTOM_FIELDS_MAX = 50;
export const CUSTOM_FIELD_NAME_MAX = 100;
export const CUSTOM_FIELD_VALUE_MAX_BYTES = 1024;

export type WebsiteNormalizer = (input: string) => { ok: true; url: string } | { ok: false; message: string };

/** Starts validation work; implemented by the batches module. Runs inside the caller's transaction. */
export interface ValidationScheduler {
  /** Queues validation of one just-created lead (no batch). */
  validateLead(trx: Transaction<Schema>, accountId: string, leadId: string): Promise<void>;
  /** Creates a lead validation batch over the leads and queues it; enforces the batch limits. */
  startLeadBatch(
    trx: Transaction<Schema>,
    accountId: string,
    leadIds: string[],
    options: { webhookUrl: string | null; source: string },
  ): Promise<{ batchId: string; createdAt: string }>;
}

export interface LeadsDeps {
  database: Database;
  credits: CreditsService;
  events: EventBus;
  clock: Clock;
  normalizeWebsite: WebsiteNormalizer;
  scheduler: ValidationScheduler;
  prices: { leadCreateWithValidation: number; leadValidation: number };
}

type Editable = Partial<
  Pick<
    LeadsTable,
    | "email"
    | "email_lower"
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

const pick = <T>(...values: (T | undefined)[]): T | undefined => values.find((v) => v !== undefined);

export interface BulkResult {
  created: number;
  failed: number;
  batchId: string | null;
  leads: { id: string; email: string; status: "created" }[];
  errors: { index: number; email: string | null; error: string }[];
}

export class LeadsService {
  private readonly repo = new LeadsRepo();
  private readonly liveLeadById: ReturnType<typeof prepareLiveLeadById>;

  constructor(private readonly deps: LeadsDeps) {
    this.liveLeadById = prepareLiveLeadById(deps.database);
  }

  /** Checks and maps the editable fields of a create or update body; collects every field error. */
  private mapFields(input: LeadUpdateInput, errors: FieldError[]): Editable {
    const out: Editable = {};
    if (input.email !== undefined) {
      const parsed = parseEmail(input.email);
      if (!parsed.ok)
        errors.push({ field: "email", message: `invalid email: ${parsed.message}`, type: "format" });
      else {
        out.email = parsed.email;
        out.email_lower = parsed.email.toLowerCase();
      }
    }
    const website = pick(input.website, input.domain);
    if (website === null || website === "") out.website = null;
    else if (website !== undefined) {
      const n = this.deps.normalizeWebsite(website);
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

  private checkCustomFields(fields: Record<string, unknown>, errors: FieldError[]): void {
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
  private newRow(accountId: string, input: LeadCreateInput, source: string, now: Date) {
    const errors: FieldError[] = [];
    const fields = this.mapFields(input, errors);
    const customFields = fields.customFields ?? {};
    this.checkCustomFields(customFields, errors);
    if (errors.length > 0) return { errors };
    const at = now.toISOString();
    const validate = input.validate !== false;
    const row: LeadsTable = {
      id: newId("lead", now.getTime()),
      account_id: accountId,
      email: fields.email!,
      email_lower: fields.email_lower!,
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
      domain_status: null,
      domain_http_status: null,
      domain_final_url: null,
      domain_ssl_valid: null,
      domain_parked: null,
      domain_response_time_ms: null,
      domain_score: null,
      validation_details: null,
      validated_at: null,
      archived_at: null,
      created_at: at,
      updated_at: at,
    };
    return { row, validate };
  }

  private async charge(
    trx: Transaction<Schema>,
    accountId: string,
    amountMilli: number,
    reason: string,
    reference: string,
  ) {
    const outcome = await this.deps.credits.debitWithin(trx, { accountId, amountMilli, reason, reference });
    if (outcome.kind === "insufficient_credits")
      throw paymentRequired(outcome.requiredMilli, outcome.availableMilli);
  }

  /** Inserts leads with their lead.created events, many rows per statement. */
  private async insertLeads(trx: Transaction<Schema>, rows: LeadsTable[], now: Date): Promise<void> {
    await this.repo.insertMany(trx, rows);
    await this.deps.events.emitMany(
      trx,
      rows.map((row) => ({
        type: "lead.created" as const,
        accountId: row.account_id,
        data: { leadId: row.id, email: row.email },
      })),
      now,
    );
  }

  async create(accountId: string, input: LeadCreateInput, source = "api"): Promise<LeadView> {
    const now = this.deps.clock.now();
    const built = this.newRow(accountId, input, source, now);
    if ("errors" in built) throw validationError(built.errors!);
    const { row, validate } = built;
    const { db, caps } = this.deps.database;
    try {
      // The partial unique index on live emails decides duplicates (no read first: one round trip
      // less); the lead goes in before the charge, so a duplicate is refused as one even when the
      // account could not pay, and a refused lead rolls its charge back with it.
      await db.transaction().execute(async (trx) => {
        await this.insertLeads(trx, [row], now);
        if (validate) {
          await this.charge(
            trx,
            accountId,
            this.deps.prices.leadCreateWithValidation,
            "Lead creation with validation",
            row.id,
          );
          await this.deps.scheduler.validateLead(trx, accountId, row.id);
        }
      });
    } catch (error) {
      if (caps.isUniqueViolation(error)) throw duplicate(row.email);
      throw error;
    }
    return toLeadView(row);
  }

  async get(accountId: string, leadId: string): Promise<LeadView> {
    const row = await this.liveLeadById.first({ id: leadId, accountId });
    if (!row) throw notFound("Lead");
    return toLeadView(row);
  }

  async list(accountId: string, q: LeadListInput) {
    const filter: LeadFilter = {
      emailValid: q.emailValid,
      minRating: pick(q.minDeliverabilityRating, q.min_score),
      maxRating: pick(q.maxDeliverabilityRating, q.max_score),
      validationStatus: pick(q.validationStatus, q.status),
      recommendation: q.leadRecommendation,
      campaign: q.campaign,
      source: q.source,
      search: q.search?.trim().toLowerCase() || undefined,
      tag: q.tag,
    };
    const { db, caps } = this.deps.database;
    const { rows, total } = await this.repo.list(db, caps, accountId, filter, q.limit, q.offset);
    const hasMore = q.offset + rows.length < total;
    return {
      leads: rows.map(toLeadView),
      total,
      limit: q.limit,
      offset: q.offset,
      hasMore,
      nextOffset: hasMore ? q.offset + rows.length : null,
    };
  }

  async update(accountId: string, leadId: string, input: LeadUpdateInput): Promise<LeadView> {
    const errors: FieldError[] = [];
    const fields = this.mapFields(input, errors);
    const { db, caps } = this.deps.database;
    const now = this.deps.clock.now();
    try {
      return await db.transaction().execute(async (trx) => {
        const existing = await this.repo.findLive(trx, accountId, leadId);
        if (!existing) throw notFound("Lead");
        const { customFields, ...columns } = fields;
        const changes: Partial<LeadsTable> = { ...columns };
        if (customFields !== undefined) {
          // Merge: listed keys overwrite, a null value removes the key, others are kept.
          const merged: Record<string, unknown> = { ...JSON.parse(existing.custom_fields) };
          for (const [k, v] of Object.entries(customFields ?? {})) {
            if (v === null) delete merged[k];
            else merged[k] = v;
          }
          this.checkCustomFields(merged, errors);
          changes.custom_fields = JSON.stringify(merged);
        }
        if (errors.length > 0) throw validationError(errors);
        if (
          changes.email_lower &&
          (await this.repo.liveEmailTaken(trx, accountId, changes.email_lower, leadId))
        ) {
          throw duplicate(changes.email!);
        }
        changes.updated_at = now.toISOString();
        await this.repo.update(trx, accountId, leadId, changes);
        const changed = Object.keys(fields).filter((k) => k !== "email_lower");
        await this.deps.events.emit(trx, "lead.updated", accountId, { leadId, changedFields: changed }, now);
        return toLeadView({ ...existing, ...changes });
      });
    } catch (error) {
      if (caps.isUniqueViolation(error)) throw duplicate(fields.email ?? "");
      throw error;
    }
  }

  async archive(accountId: string, leadId: string): Promise<void> {
    const at = this.deps.clock.now().toISOString();
    const result = await this.repo.update(this.deps.database.db, accountId, leadId, {
      archived_at: at,
      updated_at: at,
    });
    if (Number(result.numUpdatedRows) === 0) throw notFound("Lead");
  }

  /** The account's live leads in id order, read a page at a time (CSV export). */
  iterate(accountId: string) {
    return this.repo.iterate(this.deps.database.db, accountId);
  }

  async stats(accountId: string) {
    const s = await this.repo.stats(this.deps.database.db, accountId);
    const byStatus = Object.fromEntries(
      ["new", "processing", "valid", "invalid", "risky"].map((k) => [k, 0]),
    );
    for (const r of s.byStatus) byStatus[r.key] = Number(r.n);
    const byRecommendation = Object.fromEntries(
      ["high_priority", "validate", "research", "skip"].map((k) => [k, 0]),
    );
    for (const r of s.byRec) byRecommendation[r.key] = Number(r.n);
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    // The email verdict of validated leads; a verdict outside the four (none recorded) is unknown.
    const byVerdict = { valid: 0, risky: 0, invalid: 0, unknown: 0, notValidated: total - s.validated };
    for (const r of s.byVerdict) {
      const key = r.key === "valid" || r.key === "risky" || r.key === "invalid" ? r.key : "unknown";
      byVerdict[key] += Number(r.n);
    }
    return {
      total,
      validated: s.validated,
      byVerdict,
      byValidationStatus: byStatus,
      byRecommendation,
      averageRating: s.averageRating === null ? null : Math.round(s.averageRating * 10) / 10,
    };
  }

  /** Each item is checked on its own; the good ones are created and, when validating, charged
   *  in one debit and validated as one batch. Not enough credits for all: 402, nothing created. */
  async bulk(
    accountId: string,
    items: LeadCreateInput[],
    validate: boolean,
    source = "api",
    /** Import mode: any bad item refuses the whole request (422 by line number), nothing created. */
    strict?: { lines: number[] },
  ): Promise<BulkResult> {
    // Items arrive unchecked (see itemSchemaErrors).
    const now = this.deps.clock.now();
    const itemErrors: BulkResult["errors"] = [];
    const rows: LeadsTable[] = [];
    /** email_lower -> index of the item that produced the row. */
    const indexOf = new Map<string, number>();
    items.forEach((item, index) => {
      const email = typeof item?.email === "string" ? item.email : null;
      const schemaError = itemSchemaErrors(item);
      if (schemaError) {
        itemErrors.push({ index, email, error: schemaError });
        return;
      }
      const built = this.newRow(accountId, { ...item, validate }, source, now);
      if ("errors" in built) {
        itemErrors.push({
          index,
          email,
          error: built.errors!.map((e) => `${e.field}: ${e.message}`).join("; "),
        });
      } else if (indexOf.has(built.row.email_lower)) {
        itemErrors.push({ index, email, error: "duplicate email in this request" });
      } else {
        indexOf.set(built.row.email_lower, index);
        rows.push(built.row);
      }
    });
    const { db, caps } = this.deps.database;
    const attempt = () =>
      db.transaction().execute(async (trx) => {
        const errors = [...itemErrors];
        const taken = await this.repo.liveEmailsTaken(
          trx,
          accountId,
          rows.map((r) => r.email_lower),
        );
        const fresh = rows.filter((r) => {
          if (!taken.has(r.email_lower)) return true;
          errors.push({
            index: indexOf.get(r.email_lower)!,
            email: r.email,
            error: "a lead with this email already exists",
          });
          return false;
        });
        if (strict && errors.length > 0) {
          errors.sort((a, b) => a.index - b.index);
          throw validationError(
            errors.slice(0, 200).map((e) => ({
              field: `line ${strict.lines[e.index] ?? e.index + 2}`,
              message: e.error,
              type: "row",
            })),
            `${errors.length} bad row(s); nothing was imported`,
          );
        }
        let batchId: string | null = null;
        if (validate && fresh.length > 0) {
          await this.charge(
            trx,
            accountId,
            fresh.length * this.deps.prices.leadCreateWithValidation,
            `Bulk lead creation with validation (${fresh.length})`,
            fresh[0]!.id,
          );
        }
        await this.insertLeads(trx, fresh, now);
        if (validate && fresh.length > 0) {
          const batch = await this.deps.scheduler.startLeadBatch(
            trx,
            accountId,
            fresh.map((r) => r.id),
            { webhookUrl: null, source },
          );
          batchId = batch.batchId;
        }
        errors.sort((a, b) => a.index - b.index);
        return {
          created: fresh.length,
          failed: errors.length,
          batchId,
          leads: fresh.map((r) => ({ id: r.id, email: r.email, status: "created" as const })),
          errors,
        };
      });
    try {
      return await attempt();
    } catch (error) {
      // A lead with one of these emails was created between the read and the insert (the unique
      // index refused it, nothing of this request was kept): the second look reports it per item.
      if (!caps.isUniqueViolation(error)) throw error;
      return attempt();
    }
  }

  /** Validates existing leads as a batch: all ids must be the account's (else 404 listing the
   *  missing ones, nothing charged); all are charged upfront in one step or none. */
  async validate(accountId: string, leadIds: string[], webhookUrl: string | null) {
    const ids = [...new Set(leadIds)];
    const { db } = this.deps.database;
    return db.transaction().execute(async (trx) => {
      const found = await this.repo.liveIds(trx, accountId, ids);
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) {
        throw new AppError("NOT_FOUND", `${missing.length} lead(s) not found`, { missingLeadIds: missing });
      }
      const batchRef = `validate:${ids[0]}:${ids.length}`;
      await this.charge(
        trx,
        accountId,
        ids.length * this.deps.prices.leadValidation,
        `Lead validation (${ids.length})`,
        batchRef,
      );
      const batch = await this.deps.scheduler.startLeadBatch(trx, accountId, ids, {
        webhookUrl,
        source: "validate",
      });
      return { ...batch, totalLeads: ids.length };
    });
  }
}

function duplicate(email: string): AppError {
  return new AppError("DUPLICATE_LEAD", `A lead with email ${email} already exists`, { email });
}
