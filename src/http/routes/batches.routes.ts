import { Type } from "@sinclair/typebox";
import { BatchParams, BatchResultsPage, BatchView, MAX_DOMAIN_BATCH } from "../../batches/batches.schemas.js";
import type { BatchesService } from "../../batches/batches.service.js";
import { refuseEmptyOrHuge, splitPastedList } from "../../leads/pasted-list.js";
import { MULTILINE } from "../../lib/safe-text.js";
import type { App } from "../app-types.js";
import { principalOf } from "../auth.js";
import { type NetworkRefusalDeps, refuseWhenDnsDown } from "../network-refusal.js";
import { DATA_SECURITY, Page, PageQuery } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface BatchesRoutesDeps extends NetworkRefusalDeps {
  batches: BatchesService;
}

export async function batchesRoutes(app: App, deps: BatchesRoutesDeps): Promise<void> {
  const common = { tags: ["batches"], security: DATA_SECURITY };
  const config = { auth: "data" as const };

  app.get(
    "/v1/batches",
    {
      config: { ...config, permission: "batches:write" },
      schema: {
        ...common,
        operationId: "listBatches",
        summary: "The account's batches, newest first, with progress",
        description:
          "The account's validation and domain batches, newest first, with their progress counts; paged by limit and offset.",
        querystring: PageQuery,
        response: {
          200: Page("batches", BatchView),
        },
      },
    },
    async (request) =>
      deps.batches.list(principalOf(request).accountId, request.query.limit, request.query.offset),
  );

  app.get(
    "/v1/batches/:batchId",
    {
      config: { ...config, permission: "batches:write" },
      schema: {
        ...common,
        operationId: "getBatch",
        summary: "A validation batch with live counts",
        description:
          "One batch with its live counts (pending, completed, failed) and progress. Another account's batch is 404.",
        params: BatchParams,
        response: { 200: BatchView },
      },
    },
    async (request) => deps.batches.get(principalOf(request).accountId, request.params.batchId),
  );

  app.get(
    "/v1/batches/:batchId/results",
    {
      config: { ...config, permission: "batches:write" },
      schema: {
        ...common,
        operationId: "listBatchResults",
        summary: "Item results of a batch, in input order",
        description:
          "The results of a batch's items in the order they were given, paged by limit and offset.",
        params: BatchParams,
        querystring: PageQuery,
        response: {
          200: BatchResultsPage,
        },
      },
    },
    async (request) =>
      deps.batches.results(
        principalOf(request).accountId,
        request.params.batchId,
        request.query.limit,
        request.query.offset,
      ),
  );

  app.post(
    "/v1/batch",
    {
      config: { ...config, permission: "batches:write" },
      schema: {
        ...common,
        operationId: "createDomainBatch",
        summary: "Check 1-10,000 websites as a batch (0.001 credits each, charged upfront)",
        description:
          "Queues a website check for each domain and charges for all of them before the work starts; poll the batch for progress and results.",
        body: Type.Object({
          domains: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
            minItems: 1,
            maxItems: MAX_DOMAIN_BATCH,
          }),
        }),
        response: { 200: BatchView },
      },
    },
    async (request) => {
      refuseWhenDnsDown(deps, "domain batch", principalOf(request).accountId);
      return deps.batches.createDomainBatch(principalOf(request).accountId, request.body.domains);
    },
  );

  app.post(
    "/v1/batches/import/domains",
    {
      config: { ...config, permission: "batches:write" },
      schema: {
        ...common,
        operationId: "importDomainList",
        summary: "Check a pasted list of domains as a batch (one per line, or separated by commas)",
        description:
          "Like the other imports: all lines or none. Any bad domain refuses the whole list (422, `details.errors[].field` is `line N`), nothing charged. Spaces inside a line are not separators.",
        body: Type.Object({
          text: Type.String({
            minLength: 1,
            maxLength: 1_000_000,
            description: "The pasted list",
            [MULTILINE]: true,
          }),
        }),
        response: { 200: BatchView },
      },
    },
    async (request) => {
      const entries = splitPastedList(request.body.text);
      refuseEmptyOrHuge(entries.length);
      return deps.batches.createDomainBatch(
        principalOf(request).accountId,
        entries.map((entry) => entry.value),
        entries.map((entry) => entry.line),
      );
    },
  );
}
