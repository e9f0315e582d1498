import type { Readable } from "node:stream";
import { Type } from "@sinclair/typebox";
import type { LeadBulkActions } from "../../leads/lead-bulk-actions.js";
import { customFieldNamesOf, leadsCsvStream } from "../../leads/lead-csv-export.js";
import {
  BulkBody,
  ImportResult,
  importAnswer,
  Lead,
  LeadCreateBody,
  type LeadCreateInput,
  LeadIdParams,
  LeadIds,
  LeadListQuery,
  LeadUpdateBody,
  TAG_MAX_CHARS,
  TAGS_PER_LEAD_MAX,
  TagList,
  ValidateBody,
} from "../../leads/leads.schemas.js";
import type { LeadsService } from "../../leads/leads.service.js";
import { refuseEmptyOrHuge, splitPastedList } from "../../leads/pasted-list.js";
import { invalid } from "../../lib/errors.js";
import { MULTILINE } from "../../lib/safe-text.js";
import type { WebhooksService } from "../../webhooks/webhooks.service.js";
import type { App } from "../app-types.js";
import { principalOf } from "../auth.js";
import { type NetworkRefusalDeps, refuseWhenDnsDown } from "../network-refusal.js";
import { DATA_SECURITY, Nullable, Page, Timestamp } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface LeadsRoutesDeps extends NetworkRefusalDeps {
  leadActions: LeadBulkActions;
  leads: LeadsService;
  webhooks: WebhooksService;
}

export async function leadsRoutes(app: App, deps: LeadsRoutesDeps): Promise<void> {
  const common = { tags: ["leads"], security: DATA_SECURITY };
  const config = { auth: "data" as const };
  const leads = deps.leads;

  app.post(
    "/v1/leads",
    {
      config: { ...config, permission: "leads:write" },
      schema: {
        ...common,
        operationId: "createLead",
        summary: "Create a lead (validated unless validate: false)",
        description:
          "Stores a lead and, unless validate is false, charges for and starts its validation (the email, and the website when given). An email already used by one of the account's live leads (case-insensitive) is refused.",
        body: LeadCreateBody,
        response: { 201: Lead },
      },
    },
    async (request, reply) => {
      if (request.body.validate !== false)
        refuseWhenDnsDown(deps, "lead's validation", principalOf(request).accountId);
      const lead = await leads.create(principalOf(request).accountId, request.body);
      return reply.status(201).send(lead);
    },
  );

  app.get(
    "/v1/leads",
    {
      config: { ...config, permission: "leads:read" },
      schema: {
        ...common,
        operationId: "listLeads",
        summary: "List leads, newest first; search by email, name or company, filter by tag",
        description:
          "The account's live leads, newest first, paged by limit and offset, filtered by validation status, rating, tags and a search over email, name and company.",
        querystring: LeadListQuery,
        response: {
          200: Page("leads", Lead),
        },
      },
    },
    async (request) => leads.list(principalOf(request).accountId, request.query),
  );

  app.get(
    "/v1/leads/stats",
    {
      config: { ...config, permission: "leads:read" },
      schema: {
        ...common,
        operationId: "getLeadStats",
        summary: "Lead statistics: counts by validation status, recommendation and verdict, average rating",
        description:
          "Counts of the account's live leads by validation status, recommendation and email verdict, and their average rating.",
        response: {
          200: Type.Object({
            total: Type.Integer(),
            validated: Type.Integer(),
            byValidationStatus: Type.Record(Type.String(), Type.Integer()),
            byRecommendation: Type.Record(Type.String(), Type.Integer()),
            byVerdict: Type.Object(
              {
                valid: Type.Integer(),
                risky: Type.Integer(),
                invalid: Type.Integer(),
                unknown: Type.Integer(),
                notValidated: Type.Integer(),
              },
              { description: "Live leads by email verdict; notValidated: never validated yet" },
            ),
            averageRating: Nullable(Type.Number()),
          }),
        },
      },
    },
    async (request) => leads.stats(principalOf(request).accountId),
  );

  app.get(
    "/v1/leads/:leadId",
    {
      config: { ...config, permission: "leads:read" },
      schema: {
        ...common,
        operationId: "getLead",
        summary: "Get a lead with its validation results",
        description:
          "One lead with its email and website results, rating and the factors behind it. Another account's or an archived lead is 404.",
        params: LeadIdParams,
        response: { 200: Lead },
      },
    },
    async (request) => leads.get(principalOf(request).accountId, request.params.leadId),
  );

  app.put(
    "/v1/leads/:leadId",
    {
      config: { ...config, permission: "leads:write" },
      schema: {
        ...common,
        operationId: "updateLead",
        summary: "Update a lead (partial; null clears; customFields merge; no validation, no charge)",
        description:
          "Changes the given fields only; null clears an optional field. Nothing is validated again and nothing is charged.",
        params: LeadIdParams,
        body: LeadUpdateBody,
        response: { 200: Lead },
      },
    },
    async (request) => leads.update(principalOf(request).accountId, request.params.leadId, request.body),
  );

  app.delete(
    "/v1/leads/:leadId",
    {
      config: { ...config, permission: "leads:write" },
      schema: {
        ...common,
        operationId: "archiveLead",
        summary: "Archive a lead (soft delete)",
        description:
          "Hides the lead from lists and reads (then 404) while keeping it in storage; its email can be used by a new lead.",
        params: LeadIdParams,
        response: {
          200: Type.Object({ message: Type.String(), leadId: Type.String(), lead_id: Type.String() }),
        },
      },
    },
    async (request) => {
      await leads.archive(principalOf(request).accountId, request.params.leadId);
      return { message: "Lead archived", leadId: request.params.leadId, lead_id: request.params.leadId };
    },
  );

  app.post(
    "/v1/leads/bulk",
    {
      config: { ...config, permission: "leads:write" },
      schema: {
        ...common,
        operationId: "createLeadsInBulk",
        summary: "Create 1-500 leads; bad items are reported, good ones created",
        description:
          "Each item is checked on its own: bad or duplicate items are listed in errors with their index, the good ones are created.",
        body: BulkBody,
        response: {
          200: Type.Object({
            created: Type.Integer(),
            failed: Type.Integer(),
            batchId: Nullable(Type.String()),
            leads: Type.Array(
              Type.Object({ id: Type.String(), email: Type.String(), status: Type.String() }),
            ),
            lead_ids: Type.Array(Type.String()),
            errors: Type.Array(
              Type.Object({ index: Type.Integer(), email: Nullable(Type.String()), error: Type.String() }),
            ),
          }),
        },
      },
    },
    async (request) => {
      if (request.body.validate !== false)
        refuseWhenDnsDown(deps, "leads' validation", principalOf(request).accountId);
      const result = await leads.bulk(
        principalOf(request).accountId,
        request.body.leads as LeadCreateInput[],
        request.body.validate !== false,
      );
      return { ...result, lead_ids: result.leads.map((lead) => lead.id) };
    },
  );

  app.post(
    "/v1/leads/import/emails",
    {
      config: { ...config, permission: "leads:write" },
      schema: {
        ...common,
        operationId: "importEmailList",
        summary: "Import a pasted list of email addresses as leads (one per line, or separated by commas)",
        description:
          "Like the CSV import: all lines or none. Any bad or duplicate address refuses the whole list (422, `details.errors[].field` is `line N`). Spaces inside a line are not separators. Source is `manual` (the spec's sources).",
        body: Type.Object({
          text: Type.String({
            minLength: 1,
            maxLength: 1_000_000,
            description: "The pasted list",
            [MULTILINE]: true,
          }),
          validate: Type.Optional(Type.Boolean({ default: true })),
        }),
        response: { 200: ImportResult },
      },
    },
    async (request) => {
      const entries = splitPastedList(request.body.text);
      refuseEmptyOrHuge(entries.length);
      const validate = request.body.validate !== false;
      if (validate) refuseWhenDnsDown(deps, "leads' validation", principalOf(request).accountId);
      const result = await leads.bulk(
        principalOf(request).accountId,
        entries.map((entry) => ({ email: entry.value }) as LeadCreateInput),
        validate,
        "manual",
        { lines: entries.map((entry) => entry.line) },
      );
      return importAnswer(result);
    },
  );

  app.post(
    "/v1/leads/archive",
    {
      config: { ...config, permission: "leads:write" },
      schema: {
        ...common,
        operationId: "archiveLeads",
        summary: "Archive a selection of leads (soft delete), all or none",
        description: "Archives every given lead, or none when one of them is not the account's.",
        body: Type.Object({ leadIds: LeadIds }),
        response: { 200: Type.Object({ archived: Type.Integer(), leadIds: Type.Array(Type.String()) }) },
      },
    },
    async (request) => deps.leadActions.archive(principalOf(request).accountId, request.body.leadIds),
  );

  app.post(
    "/v1/leads/tags",
    {
      config: { ...config, permission: "leads:write" },
      schema: {
        ...common,
        operationId: "tagLeads",
        summary: "Add and remove tags on a selection of leads, all or none",
        description: `Tags are trimmed, 1-${TAG_MAX_CHARS} characters, case-sensitive; a lead carries at most ${TAGS_PER_LEAD_MAX} (422 otherwise, nothing changed). \`updated\` counts the leads whose tags changed; each gets a lead.updated event.`,
        body: Type.Object({ leadIds: LeadIds, add: Type.Optional(TagList), remove: Type.Optional(TagList) }),
        response: { 200: Type.Object({ updated: Type.Integer(), leadIds: Type.Array(Type.String()) }) },
      },
    },
    async (request) =>
      deps.leadActions.tag(principalOf(request).accountId, request.body.leadIds, {
        add: request.body.add,
        remove: request.body.remove,
      }),
  );

  app.post(
    "/v1/leads/export",
    {
      config: { ...config, permission: "leads:read" },
      schema: {
        ...common,
        operationId: "exportLeadSelection",
        summary: "Export a selection of leads as CSV (the columns of GET /v1/leads/export)",
        description: "The same CSV as GET /v1/leads/export, for the given lead ids only.",
        body: Type.Object({ leadIds: LeadIds }),
        response: {
          200: {
            description: "One header row, then one row per selected lead, in id order",
            content: { "text/csv": { schema: Type.Unsafe<Readable>({ type: "string" }) } },
          },
        },
      },
    },
    async (request, reply) => {
      const rows = await deps.leadActions.selection(principalOf(request).accountId, request.body.leadIds);
      const stamp = new Date().toISOString().slice(0, 10);
      reply
        .header("Content-Type", "text/csv; charset=utf-8")
        .header("Content-Disposition", `attachment; filename="leads-selection-${stamp}.csv"`);
      const customFieldNames = await customFieldNamesOf(fromArray(rows));
      return reply.send(leadsCsvStream(fromArray(rows), customFieldNames));
    },
  );

  app.post(
    "/v1/leads/validate",
    {
      config: { ...config, permission: "batches:write" },
      schema: {
        ...common,
        operationId: "validateLeads",
        summary: "Validate 1-500 existing leads as a batch",
        description:
          "Starts a batch that validates the given leads in the background; poll the batch for progress. Credits are charged when the batch is accepted.",
        body: ValidateBody,
        response: {
          200: Type.Object({
            batchId: Type.String(),
            job_id: Type.String(),
            status: Type.String(),
            createdAt: Timestamp,
            pollUrl: Type.String(),
            totalLeads: Type.Integer(),
            total_leads: Type.Integer(),
          }),
        },
      },
    },
    async (request) => {
      const ids = request.body.leadIds ?? request.body.lead_ids;
      if (!ids) throw invalid([{ field: "leadIds", message: "is required", type: "required" }]);
      const webhookUrl =
        request.body.webhookUrl === undefined
          ? null
          : await deps.webhooks.assertCallbackUrl(request.body.webhookUrl);
      refuseWhenDnsDown(deps, "leads' validation", principalOf(request).accountId);
      const batch = await leads.validate(principalOf(request).accountId, ids, webhookUrl);
      return {
        batchId: batch.batchId,
        job_id: batch.batchId,
        status: "processing",
        createdAt: batch.createdAt,
        pollUrl: `/v1/batches/${batch.batchId}`,
        totalLeads: batch.totalLeads,
        total_leads: batch.totalLeads,
      };
    },
  );
}

async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}
