// POST /v1/account/export and its status and download (issue 25).
import { Type } from "@sinclair/typebox";
import { ExportParams, ExportStatus } from "../../account-export/account-export.schemas.js";
import type { AccountExportService } from "../../account-export/account-export.service.js";
import type { App } from "../app-types.js";
import { auditActorOf } from "../audit-actor.js";
import { principalOf } from "../auth.js";
import { DATA_SECURITY, NO_SECURITY } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface AccountExportRoutesDeps {
  accountExport: AccountExportService;
}

export async function accountExportRoutes(app: App, deps: AccountExportRoutesDeps): Promise<void> {
  const common = { tags: ["data"], security: DATA_SECURITY };
  const config = { auth: "data" as const };

  app.post(
    "/v1/account/export",
    {
      config: { ...config, permission: "data:admin" },
      schema: {
        ...common,
        operationId: "exportAccount",
        summary: "Start an export of everything the account holds",
        description:
          "Builds, as a background job, one gzipped JSON Lines file (`{resource, data}` per line: leads, batches, batch items, checks, events, webhooks without secrets, deliveries, keys without hashes, ledger, audit entries, settings). The download link (with the token shown only here) works for 24 hours. Audited.",
        response: {
          202: Type.Composite([
            ExportStatus,
            Type.Object({ token: Type.String(), download_url: Type.String() }),
          ]),
        },
      },
    },
    async (request, reply) => {
      const started = await deps.accountExport.request(principalOf(request).accountId, auditActorOf(request));
      const download_url = `/v1/account/export/${started.export_id}/download?token=${started.token}`;
      return reply.status(202).send({ ...started, download_url });
    },
  );

  app.get(
    "/v1/account/export/:export_id",
    {
      config: { ...config, permission: "data:admin" },
      schema: {
        ...common,
        operationId: "getAccountExport",
        summary: "The state of an account export",
        description: "Pending, ready or failed, with the archive's size and when its link expires.",
        params: ExportParams,
        response: { 200: ExportStatus },
      },
    },
    async (request) => deps.accountExport.status(principalOf(request).accountId, request.params.export_id),
  );

  app.get(
    "/v1/account/export/:export_id/download",
    {
      // The token in the link is the credential, so the link works from a browser download.
      config: { permission: "none" },
      schema: {
        tags: ["data"],
        security: NO_SECURITY,
        operationId: "downloadAccountExport",
        summary: "Download an account export with its token",
        description:
          "The gzipped JSON Lines archive. The token is the credential (shown once when the export was requested); 404 for a wrong token and after 24 hours (reason expired), 409 while it is being built.",
        params: ExportParams,
        querystring: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
        // Only the success is gzip: errors keep the JSON error body, which `produces` would relabel.
        response: {
          200: {
            description: "The gzipped JSON Lines archive",
            content: {
              "application/gzip": { schema: Type.Unsafe<Buffer>({ type: "string", format: "binary" }) },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { archive, exportId } = await deps.accountExport.download(
        request.params.export_id,
        request.query.token,
      );
      return reply
        .header("Content-Type", "application/gzip")
        .header("Content-Disposition", `attachment; filename="leadcheck-${exportId}.jsonl.gz"`)
        .header("Cache-Control", "no-store")
        .send(archive);
    },
  );
}
