import { Type } from "@sinclair/typebox";
import type { IntegrationsServices } from "../../integrations/create-integrations.js";
import {
  Connection,
  ConnectionCreateBody,
  ConnectionParams,
  PreviewBody,
  Sync,
  SyncCreateBody,
  SyncParams,
  SyncPreview,
  WatchParams,
} from "../../integrations/integrations.schemas.js";
import type { App } from "../app-types.js";
import { principalOf } from "../auth.js";
import { DATA_SECURITY } from "../schemas.js";

/** What these routes use (the app hands each route file only its own deps). */
export interface ConnectionsRoutesDeps {
  /** Google Sheets and HubSpot connections and syncs; absent: their routes are not served. */
  integrations?: IntegrationsServices | undefined;
}

export async function connectionsRoutes(app: App, deps: ConnectionsRoutesDeps): Promise<void> {
  const integrations = deps.integrations;
  if (!integrations) return;
  const { connections, syncs, preview } = integrations;
  const common = { tags: ["connections"], security: DATA_SECURITY };
  const config = { auth: "data" as const };

  app.post(
    "/v1/connections",
    {
      config: { ...config, permission: "connections:write", liveOnly: true },
      schema: {
        ...common,
        operationId: "createConnection",
        summary: "Connect a HubSpot account (private-app token) or a Google service account; verified first",
        body: ConnectionCreateBody,
        response: { 201: Connection },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await connections.create(principalOf(request).accountId, request.body)),
  );

  app.get(
    "/v1/connections",
    {
      config: { ...config, permission: "connections:write" },
      schema: {
        ...common,
        operationId: "listConnections",
        summary: "List connections (never their credentials)",
        response: { 200: Type.Object({ connections: Type.Array(Connection), total: Type.Integer() }) },
      },
    },
    async (request) => connections.list(principalOf(request).accountId),
  );

  app.get(
    "/v1/connections/:connectionId",
    {
      config: { ...config, permission: "connections:write" },
      schema: {
        ...common,
        operationId: "getConnection",
        summary: "Get a connection",
        params: ConnectionParams,
        response: { 200: Connection },
      },
    },
    async (request) => {
      const accountId = principalOf(request).accountId;
      const found = await connections.get(accountId, request.params.connectionId);
      return { ...found, watches: await syncs.watches(accountId, request.params.connectionId) };
    },
  );

  app.delete(
    "/v1/connections/:connectionId",
    {
      config: { ...config, permission: "connections:write" },
      schema: {
        ...common,
        operationId: "deleteConnection",
        summary: "Delete a connection and its stored credentials",
        params: ConnectionParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await connections.delete(principalOf(request).accountId, request.params.connectionId);
      return reply.status(204).send(null);
    },
  );

  app.post(
    "/v1/connections/:connectionId/syncs",
    {
      config: { ...config, permission: "connections:write", liveOnly: true },
      schema: {
        ...common,
        operationId: "startSync",
        summary: "Sync a sheet or HubSpot contacts into leads, validate them and write the verdicts back",
        params: ConnectionParams,
        body: SyncCreateBody,
        response: { 202: Sync },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(await syncs.start(principalOf(request).accountId, request.params.connectionId, request.body)),
  );

  app.post(
    "/v1/connections/:connectionId/preview",
    {
      config: { ...config, permission: "connections:write" },
      schema: {
        ...common,
        operationId: "previewSync",
        summary: "What a sync would read: the mapping, the first 5 rows or contacts, and the cost",
        description:
          "Reads the source without writing anything anywhere. Google: `spreadsheetId` (and `sheet`, else the first tab; `mapping` as for a sync) returns the tabs, the header, the detected mapping, the first 5 rows with an email, and the exact cost: new leads and leads never validated. HubSpot: `listId` or all contacts returns the first 5 contacts and their count; the cost is an upper bound (contacts already known and validated are not charged by the sync).",
        params: ConnectionParams,
        body: PreviewBody,
        response: { 200: SyncPreview },
      },
    },
    async (request) =>
      preview.preview(principalOf(request).accountId, request.params.connectionId, request.body),
  );

  app.get(
    "/v1/connections/:connectionId/syncs",
    {
      config: { ...config, permission: "connections:write" },
      schema: {
        ...common,
        operationId: "listSyncs",
        summary: "A connection's syncs, newest first (the last 100)",
        params: ConnectionParams,
        response: { 200: Type.Object({ syncs: Type.Array(Sync), total: Type.Integer() }) },
      },
    },
    async (request) => syncs.list(principalOf(request).accountId, request.params.connectionId),
  );

  app.get(
    "/v1/syncs/:syncId",
    {
      config: { ...config, permission: "connections:write" },
      schema: {
        ...common,
        operationId: "getSync",
        summary: "A sync's state, counts and errors",
        params: SyncParams,
        response: { 200: Sync },
      },
    },
    async (request) => syncs.get(principalOf(request).accountId, request.params.syncId),
  );

  app.delete(
    "/v1/connections/:connectionId/watches/:watchId",
    {
      config: { ...config, permission: "connections:write" },
      schema: {
        ...common,
        operationId: "stopWatch",
        summary: "Stop a watch: no further passes start (one already running finishes)",
        params: WatchParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { connectionId, watchId } = request.params;
      await syncs.stopWatch(principalOf(request).accountId, connectionId, watchId);
      return reply.status(204).send(null);
    },
  );
}
