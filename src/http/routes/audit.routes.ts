import { Type } from "@sinclair/typebox";
import { AuditFilterQuery, AuditListQuery, AuditPage, ChainVerification } from "../../audit/audit.schemas.js";
import type { AuditService } from "../../audit/audit.service.js";
import type { App } from "../app-types.js";
import { principalOf } from "../auth.js";
import { AppError } from "../errors.js";
import { DATA_SECURITY } from "../schemas.js";

function filterOf(query: {
  action?: string;
  actor?: string;
  actor_kind?: string;
  target?: string;
  from?: string;
  to?: string;
}) {
  return {
    action: query.action,
    actorId: query.actor,
    actorKind: query.actor_kind,
    targetId: query.target,
    from: query.from && new Date(query.from).toISOString(),
    to: query.to && new Date(query.to).toISOString(),
  };
}

/** What these routes use (the app hands each route file only its own deps). */
export interface AuditRoutesDeps {
  audit: AuditService;
}

export async function auditRoutes(app: App, deps: AuditRoutesDeps): Promise<void> {
  const common = { tags: ["audit"], security: DATA_SECURITY };
  const config = { auth: "data" as const };

  app.get(
    "/v1/audit-log",
    {
      config: { ...config, permission: "audit:read" },
      schema: {
        ...common,
        operationId: "listAuditLog",
        summary: "List audit entries, newest first",
        description:
          "Every sensitive action on the account (keys, webhooks, credits, exports, erasures, retention, sign-ins), filtered by action, actor, target and time, paged by cursor.",
        querystring: AuditListQuery,
        response: { 200: AuditPage },
      },
    },
    async (request) => {
      const { limit, cursor, ...filter } = request.query;
      const outcome = await deps.audit.list(principalOf(request).accountId, filterOf(filter), {
        limit,
        cursor,
      });
      if (outcome.kind === "bad_cursor")
        throw new AppError("BAD_REQUEST", "cursor is not one this API returned");
      return { entries: outcome.entries, next_cursor: outcome.next_cursor };
    },
  );

  app.get(
    "/v1/audit-log/export",
    {
      config: { ...config, permission: "audit:read" },
      schema: {
        ...common,
        operationId: "exportAuditLog",
        summary: "Download audit entries as CSV",
        description:
          "The filtered entries as CSV (newest first, up to 100,000). Cells that a spreadsheet would read as a formula start with a single quote.",
        querystring: AuditFilterQuery,
        // Only the success is CSV: errors keep the JSON error body, which `produces` would relabel.
        response: {
          200: {
            description: "One header row, then one row per entry",
            content: { "text/csv": { schema: Type.String() } },
          },
        },
      },
    },
    async (request, reply) => {
      const accountId = principalOf(request).accountId;
      let body = "";
      for await (const chunk of deps.audit.exportCsv(accountId, filterOf(request.query))) body += chunk;
      return reply
        .header("Content-Type", "text/csv; charset=utf-8")
        .header("Content-Disposition", 'attachment; filename="audit-log.csv"')
        .send(body);
    },
  );

  app.get(
    "/v1/audit-log/verify",
    {
      config: { ...config, permission: "audit:read" },
      schema: {
        ...common,
        operationId: "verifyAuditLog",
        summary: "Recompute the audit chain and name the first broken entry",
        description:
          "Recomputes every entry's hash and its link to the entry before it. An edited, reordered or removed entry makes valid false and names the first entry that fails.",
        response: { 200: ChainVerification },
      },
    },
    async (request) => deps.audit.verify(principalOf(request).accountId),
  );
}
