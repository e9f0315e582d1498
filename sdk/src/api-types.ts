// Named request and response types, taken from the generated OpenAPI types so they follow the
// API's schemas without restating them. Regenerate the source with `npm run sdk:types`.
import type { components, paths } from "./openapi-types.js";

export type ApiPath = keyof paths;
export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

type Operation<P extends ApiPath, M extends HttpMethod> = NonNullable<paths[P][M & keyof paths[P]]>;
type JsonContent<T> = T extends { content: { "application/json": infer B } } ? B : never;

/** The JSON body an operation accepts. */
export type RequestBody<P extends ApiPath, M extends HttpMethod> =
  Operation<P, M> extends { requestBody?: infer R } ? JsonContent<NonNullable<R>> : never;

/** The JSON body of an operation's success response (200, 201 or 202). */
export type ResponseBody<P extends ApiPath, M extends HttpMethod> =
  Operation<P, M> extends { responses: infer R } ? JsonContent<R[Extract<200 | 201 | 202, keyof R>]> : never;

/** Query parameters (the document marks those with a server-side default, limit and offset, optional). */
export type QueryParams<P extends ApiPath, M extends HttpMethod> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type ErrorBody = components["schemas"]["ErrorResponse"];

// Probes
export type HealthStatus = ResponseBody<"/health", "get">;
export type ReadinessStatus = ResponseBody<"/readiness", "get">;
/** GET /v1/status: whether the server's DNS and SMTP egress work, and since when. */
export type NetworkStatus = ResponseBody<"/v1/status", "get">;

// Checks
export type WebsiteCheckInput = RequestBody<"/v1/check-website", "post">;
export type WebsiteCheckResult = ResponseBody<"/v1/check-website", "post">;
export type EmailCheckInput = RequestBody<"/v1/check-email", "post">;
export type EmailCheckResult = ResponseBody<"/v1/check-email", "post">;
export type ValidationJob = ResponseBody<"/v1/validation-jobs/{jobId}", "get">;

// Leads
export type Lead = ResponseBody<"/v1/leads/{leadId}", "get">;
export type LeadCreateInput = RequestBody<"/v1/leads", "post">;
export type LeadUpdateInput = RequestBody<"/v1/leads/{leadId}", "put">;
export type LeadListQuery = QueryParams<"/v1/leads", "get">;
export type LeadPage = ResponseBody<"/v1/leads", "get">;
export type LeadStats = ResponseBody<"/v1/leads/stats", "get">;
export type LeadArchived = ResponseBody<"/v1/leads/{leadId}", "delete">;
export type LeadBulkInput = RequestBody<"/v1/leads/bulk", "post">;
export type LeadBulkResult = ResponseBody<"/v1/leads/bulk", "post">;
export type LeadValidateInput = RequestBody<"/v1/leads/validate", "post">;
export type LeadValidateResult = ResponseBody<"/v1/leads/validate", "post">;
export type LeadImportResult = ResponseBody<"/v1/leads/import", "post">;
export type LeadsArchived = ResponseBody<"/v1/leads/archive", "post">;
export type LeadTagInput = RequestBody<"/v1/leads/tags", "post">;
export type LeadsTagged = ResponseBody<"/v1/leads/tags", "post">;

// Batches
export type Batch = ResponseBody<"/v1/batches/{batchId}", "get">;
export type BatchListQuery = QueryParams<"/v1/batches", "get">;
export type BatchPage = ResponseBody<"/v1/batches", "get">;
export type BatchResultsQuery = QueryParams<"/v1/batches/{batchId}/results", "get">;
export type BatchResultsPage = ResponseBody<"/v1/batches/{batchId}/results", "get">;

// Credits
export type CreditBalance = ResponseBody<"/v1/credits", "get">;
export type CreditTransactionsQuery = QueryParams<"/v1/credits/transactions", "get">;
export type CreditTransactionsPage = ResponseBody<"/v1/credits/transactions", "get">;
export type UsageQuery = QueryParams<"/v1/usage", "get">;
export type Usage = ResponseBody<"/v1/usage", "get">;
export type PaymentSettings = ResponseBody<"/v1/payments/settings", "get">;
export type Checkout = ResponseBody<"/v1/payments/checkout", "post">;

// API keys
export type ApiKeyCreateInput = RequestBody<"/v1/auth/keys", "post">;
export type CreatedApiKey = ResponseBody<"/v1/auth/keys", "post">;
export type ApiKeyList = ResponseBody<"/v1/auth/keys", "get">;
export type ApiKeyRevoked = ResponseBody<"/v1/auth/keys/{key_id}", "delete">;

// Connections and syncs (Google Sheets, HubSpot)
export type ConnectionCreateInput = RequestBody<"/v1/connections", "post">;
export type Connection = ResponseBody<"/v1/connections/{connectionId}", "get">;
export type ConnectionList = ResponseBody<"/v1/connections", "get">;
export type SyncCreateInput = RequestBody<"/v1/connections/{connectionId}/syncs", "post">;
export type Sync = ResponseBody<"/v1/syncs/{syncId}", "get">;
export type SyncList = ResponseBody<"/v1/connections/{connectionId}/syncs", "get">;
export type SyncPreviewInput = RequestBody<"/v1/connections/{connectionId}/preview", "post">;
export type SyncPreview = ResponseBody<"/v1/connections/{connectionId}/preview", "post">;

// Scheduled re-validation (null: off)
export type RevalidationSchedule = NonNullable<ResponseBody<"/v1/settings/revalidation", "get">>;
export type RevalidationInput = NonNullable<RequestBody<"/v1/settings/revalidation", "put">>;

// Webhooks
export type WebhookCreateInput = RequestBody<"/v1/webhooks", "post">;
export type CreatedWebhook = ResponseBody<"/v1/webhooks", "post">;
export type Webhook = ResponseBody<"/v1/webhooks/{webhook_id}", "get">;
export type WebhookList = ResponseBody<"/v1/webhooks", "get">;
export type WebhookUpdateInput = RequestBody<"/v1/webhooks/{webhook_id}", "patch">;
export type WebhookDeleted = ResponseBody<"/v1/webhooks/{webhook_id}", "delete">;
export type RotatedWebhookSecret = ResponseBody<"/v1/webhooks/{webhook_id}/rotate-secret", "post">;
export type WebhookEvent = RequestBody<"/v1/webhooks/{webhook_id}/test", "post">["event"];
export type WebhookTestResult = ResponseBody<"/v1/webhooks/{webhook_id}/test", "post">;
export type DeliveriesQuery = QueryParams<"/v1/webhooks/{webhook_id}/deliveries", "get">;
export type DeliveriesPage = ResponseBody<"/v1/webhooks/{webhook_id}/deliveries", "get">;
export type Delivery = ResponseBody<"/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver", "post">;

// Who is calling: account, role, permissions and every account of a person
export type Me = ResponseBody<"/v1/me", "get">;

// Team
export type TeamMembers = ResponseBody<"/v1/team/members", "get">;
export type TeamMember = TeamMembers["members"][number];
export type TeamRole = TeamMember["role"];
export type TeamInvitations = ResponseBody<"/v1/team/invitations", "get">;
export type TeamInvitationInput = RequestBody<"/v1/team/invitations", "post">;
export type CreatedTeamInvitation = ResponseBody<"/v1/team/invitations", "post">;
export type TeamInvitationRevoked = ResponseBody<"/v1/team/invitations/{invitationId}", "delete">;
export type TeamMemberRemoved = ResponseBody<"/v1/team/members/{memberId}", "delete">;
export type AcceptedTeamInvitation = ResponseBody<"/v1/team/invitations/{token}/accept", "post">;

// Audit log
export type AuditQuery = QueryParams<"/v1/audit-log", "get">;
export type AuditFilter = QueryParams<"/v1/audit-log/export", "get">;
export type AuditPage = ResponseBody<"/v1/audit-log", "get">;
export type AuditEntry = AuditPage["entries"][number];
export type AuditVerification = ResponseBody<"/v1/audit-log/verify", "get">;

// Personal data: erasure, retention, the account export
export type Erasure = ResponseBody<"/v1/leads/{lead_id}/erase", "post">;
export type PersonErasure = ResponseBody<"/v1/leads/erase", "post">;
export type RetentionSettings = ResponseBody<"/v1/settings/retention", "get">;
export type RetentionUpdate = RequestBody<"/v1/settings/retention", "put">;
export type AccountExport = ResponseBody<"/v1/account/export/{export_id}", "get">;
export type AccountExportStarted = ResponseBody<"/v1/account/export", "post">;

// The signup-form widget (a publishable key in a browser; the confirmation with a secret key)
export type WidgetAnswer = ResponseBody<"/v1/widget/check-email", "post">;
export type WidgetConfirmation = ResponseBody<"/v1/widget/confirm", "post">;
export type WidgetStatsQuery = QueryParams<"/v1/widget/stats", "get">;
export type WidgetStats = ResponseBody<"/v1/widget/stats", "get">;
