// CSV files of leads (ADR 0021): import (any common encoding and delimiter, errors by their real

// line) and export (the list's filters and search, cells safe in a spreadsheet, re-importable).
import type { Readable } from "node:stream";
import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import { EXPORT_COLUMNS, parseLeadsCsv } from "../../leads/lead-csv.js";
import { leadsCsvStream } from "../../leads/lead-csv-export.js";
import { ExportQuery, ImportResult, importAnswer } from "../../leads/leads.schemas.js";
import type { LeadsService } from "../../leads/leads.service.js";
import { invalid } from "../../lib/errors.js";
import type { App } from "../app-types.js";
import { principalOf } from "../auth.js";
import { AppError } from "../errors.js";
import { type NetworkRefusalDeps, refuseWhenDnsDown } from "../network-refusal.js";
import { DATA_SECURITY } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface LeadFilesRoutesDeps extends NetworkRefusalDeps {
  leads: LeadsService;
}

export async function leadFilesRoutes(app: App, deps: LeadFilesRoutesDeps): Promise<void> {
  const common = { tags: ["leads"], security: DATA_SECURITY };
  const config = { auth: "data" as const };
  const leads = deps.leads;

  app.post(
    "/v1/leads/import",
    {
      config: { ...config, permission: "leads:write" },
      schema: {
        ...common,
        operationId: "importLeads",
        summary: "Import leads from CSV (text/csv body or multipart file); header row maps to lead fields",
        description: [
          "The encoding is detected (UTF-8 with or without BOM, UTF-16 LE/BE with BOM, Windows-1252/Latin-1), and the delimiter from the header row (`,` `;` tab `|`).",
          "Unknown columns become customFields; source is csv. A file exported by `GET /v1/leads/export` re-imports to the same leads: its computed columns are skipped, `customFields.<name>` columns are custom fields, and a leading `'` before `=` `+` `-` `@` (added on export so spreadsheets show text) is removed.",
          "Any bad row refuses the whole file (422 listing rows by line number, `line N: ...`). `?validate=false` imports without validation and without charge.",
        ].join("\n\n"),
        querystring: Type.Object({ validate: Type.Optional(Type.Boolean({ default: true })) }),
        response: { 200: ImportResult },
      },
    },
    async (request) => {
      const { accountId } = principalOf(request);
      const parsed = parseLeadsCsv(await csvBytesOf(request), EXPORT_COLUMNS);
      if (!parsed.ok) {
        const first = parsed.errors[0]?.message;
        throw invalid(
          parsed.errors.map((e) => ({
            field: e.line === null ? "file" : `line ${e.line}`,
            message: e.message,
            type: "csv",
          })),
          parsed.errors.length === 1 && first
            ? `${first}; nothing was imported`
            : "The CSV file could not be imported; nothing was created",
        );
      }
      const validate = request.query.validate !== false;
      if (validate) refuseWhenDnsDown(deps, "imported leads' validation", principalOf(request).accountId);
      const result = await leads.bulk(accountId, parsed.value.leads, validate, "csv", {
        lines: parsed.value.lines,
      });
      return importAnswer(result);
    },
  );

  app.get(
    "/v1/leads/export",
    {
      config: { ...config, permission: "leads:read" },
      schema: {
        ...common,
        operationId: "exportLeads",
        summary: "Export the account's leads as CSV (streamed), with the list's filters and search",
        description:
          "Takes the filters and search of `GET /v1/leads` (not its paging). Columns: the lead's fields, its verdict (`emailStatus`), reason (`emailReason`, and `emailReasonLabel` in words), `didYouMean`, ratings and `validatedAt`, then one column per custom field (named `customFields.<name>` where the name alone would read as a lead column). Text cells starting with `=` `+` `-` `@`, tab or CR get a leading `'` so spreadsheets show them as text; NUL characters are dropped.",
        querystring: ExportQuery,
        // Only the success is CSV: errors keep the JSON error body, which `produces` would relabel.
        response: {
          200: {
            description: "One header row, then one row per lead",
            // CSV text on the wire; the handler sends it as a stream.
            content: { "text/csv": { schema: Type.Unsafe<Readable>({ type: "string" }) } },
          },
        },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      const { format: _format, ...filters } = request.query;
      const { rows, customFieldNames } = await leads.exportable(accountId, filters);
      const stamp = new Date().toISOString().slice(0, 10);
      reply
        .header("Content-Type", "text/csv; charset=utf-8")
        .header("Content-Disposition", `attachment; filename="leads-${stamp}.csv"`);
      return reply.send(leadsCsvStream(rows, customFieldNames));
    },
  );
}

/** The bytes of an import request: a text/csv body or the first file of a multipart upload. */
async function csvBytesOf(request: FastifyRequest): Promise<Buffer> {
  if (request.isMultipart()) {
    const file = await request.file();
    if (!file) throw invalid([{ field: "file", message: "no file in the upload", type: "required" }]);
    return file.toBuffer();
  }
  if (Buffer.isBuffer(request.body)) return request.body;
  throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the CSV as text/csv or as a multipart/form-data file");
}
