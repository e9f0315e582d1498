// Wire shapes of connections and syncs (issue 26). Credentials come in and are never shown again.
import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp } from "../lib/schema.js";

const CONNECTION_KINDS = ["hubspot", "google_sheets"] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];
const CONNECTION_STATUSES = ["active", "needs_reauth", "disabled"] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export const ConnectionCreateBody = Type.Object(
  {
    kind: Type.Union(CONNECTION_KINDS.map((k) => Type.Literal(k))),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    accessToken: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: "HubSpot private-app token (kind hubspot)" }),
    ),
    serviceAccount: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: "The service account's JSON key, as Google Cloud gives it (kind google_sheets)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ConnectionCreateInput = Static<typeof ConnectionCreateBody>;

export const Connection = Type.Object({
  connectionId: Type.String(),
  kind: Type.Union(CONNECTION_KINDS.map((k) => Type.Literal(k))),
  name: Type.String(),
  status: Type.Union(CONNECTION_STATUSES.map((s) => Type.Literal(s))),
  statusReason: Nullable(Type.String({ description: "Why the connection needs attention" })),
  createdAt: Timestamp,
  lastSyncAt: Nullable(Timestamp),
  clientEmail: Nullable(
    Type.String({ description: "Google: the service account's email; share the sheet with it" }),
  ),
  portalId: Nullable(
    Type.String({ description: "HubSpot: the portal (account) id the token reaches, read when connecting" }),
  ),
  watches: Type.Optional(
    Type.Array(
      Type.Object({
        watchId: Type.String(),
        everyMinutes: Type.Integer(),
        spreadsheetId: Nullable(Type.String()),
        sheet: Nullable(Type.String()),
        listId: Nullable(Type.String()),
        createdAt: Timestamp,
      }),
    ),
  ),
});
export type ConnectionView = Static<typeof Connection>;

export const SyncCreateBody = Type.Object(
  {
    spreadsheetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_-]+$" })),
    sheet: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    listId: Type.Optional(Type.String({ minLength: 1, maxLength: 50, pattern: "^[0-9A-Za-z_-]+$" })),
    validate: Type.Optional(Type.Boolean({ default: true })),
    writeBack: Type.Optional(Type.Boolean({ default: true })),
    watch: Type.Optional(
      Type.Object(
        { everyMinutes: Type.Integer({ minimum: 5, maximum: 10_080 }) },
        { additionalProperties: false, description: "Pass over the same source again at this interval" },
      ),
    ),
    mapping: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 200 }), {
        description: "Lead field -> header text (email, website, firstName, lastName, company, title, phone)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type SyncCreateInput = Static<typeof SyncCreateBody>;

const SyncCounts = Type.Object({
  read: Type.Integer(),
  created: Type.Integer(),
  matched: Type.Integer(),
  validated: Type.Integer(),
  written: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Integer(),
});
export type SyncCountsView = Static<typeof SyncCounts>;

export const Sync = Type.Object({
  syncId: Type.String(),
  connectionId: Type.String(),
  status: Type.Union([Type.Literal("running"), Type.Literal("completed"), Type.Literal("failed")]),
  phase: Type.String({ description: "import | validate | wait | write | done" }),
  watchId: Nullable(Type.String({ description: "The watch this pass belongs to" })),
  counts: SyncCounts,
  batchId: Nullable(Type.String()),
  errors: Type.Array(Type.Object({ item: Type.String(), message: Type.String() })),
  failureReason: Nullable(Type.String()),
  createdAt: Timestamp,
  completedAt: Nullable(Timestamp),
});
export type SyncView = Static<typeof Sync>;

export const SYNC_JOB = "integrations.sync";
export const SyncJobData = Type.Object({ syncId: Type.String() });
export type SyncJobData = Static<typeof SyncJobData>;
export const WATCH_JOB = "integrations.watch";
/** `after`: the pass that scheduled this one (a repeat hand-over is a no-op). */
export const WatchJobData = Type.Object({ watchId: Type.String(), after: Type.String() });
export type WatchJobData = Static<typeof WatchJobData>;

export const ConnectionParams = Type.Object({ connectionId: Type.String({ minLength: 1, maxLength: 100 }) });

export const SyncParams = Type.Object({ syncId: Type.String({ minLength: 1, maxLength: 100 }) });

export const WatchParams = Type.Object({
  connectionId: Type.String({ minLength: 1, maxLength: 100 }),
  watchId: Type.String({ minLength: 1, maxLength: 100 }),
});

export const PreviewBody = Type.Object(
  {
    spreadsheetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_-]+$" })),
    sheet: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "The tab; the first one when left out" }),
    ),
    listId: Type.Optional(Type.String({ minLength: 1, maxLength: 50, pattern: "^[0-9A-Za-z_-]+$" })),
    mapping: SyncCreateBody.properties.mapping,
  },
  { additionalProperties: false },
);
export type PreviewInput = Static<typeof PreviewBody>;

export const SyncPreview = Type.Object({
  kind: Type.Union(CONNECTION_KINDS.map((k) => Type.Literal(k))),
  sheets: Nullable(Type.Array(Type.String()), "Google: the spreadsheet's tabs, to pick from"),
  sheet: Nullable(Type.String({ description: "Google: the tab previewed" })),
  columns: Type.Array(Type.String(), {
    description: "Google: the header row; HubSpot: the contact properties read",
  }),
  mapping: Type.Record(Type.String(), Nullable(Type.String()), {
    description: "Lead field -> the header (or HubSpot property) it is read from; null when none matched",
  }),
  rows: Type.Array(
    Type.Object({
      item: Type.String({ description: "row 2, contact 1001" }),
      lead: Type.Record(Type.String(), Type.String()),
    }),
    { description: "The first 5 rows or contacts as leads" },
  ),
  total: Type.Integer({ description: "Rows with an email (Google) or contacts (HubSpot) a sync would read" }),
  totalExact: Type.Boolean({ description: "False when a long HubSpot list was counted only in part" }),
  plan: Nullable(
    Type.Object({
      created: Type.Integer(),
      matched: Type.Integer(),
      skipped: Type.Integer(),
    }),
    "Google: what the sync would create, match to live leads, and skip (HubSpot: null, the contacts are not all read)",
  ),
  cost: Type.Object({
    leads: Type.Integer({ description: "Leads the sync's validation batch would validate" }),
    credits: Type.Number({ description: "Stored credits" }),
    displayCredits: Type.Integer(),
    basis: Type.Union([Type.Literal("exact"), Type.Literal("at_most"), Type.Literal("at_least")], {
      description:
        "exact: new leads and leads never validated (Google); at_most: every contact, as if none were known or validated (HubSpot); at_least: a list longer than was counted",
    }),
  }),
});
export type SyncPreviewView = Static<typeof SyncPreview>;
