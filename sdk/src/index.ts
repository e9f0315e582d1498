// Public entry point of the leadcheck SDK.
export type * from "./api-types.js";
export { LeadcheckClient, type WaitOptions } from "./client.js";
export { type ClientErrorCode, LeadcheckError, type LeadcheckErrorInit } from "./errors.js";
export type { BatchesApi, ConnectionsApi, CreditsApi, KeysApi, LeadsApi, WebhooksApi } from "./resources.js";
export type { AuditApi, PrivacyApi, TeamApi } from "./team-resources.js";
export { type CallOptions, type ClientOptions, SDK_VERSION } from "./transport.js";
export { SIGNATURE_HEADER, signWebhookPayload, verifyWebhookSignature } from "./webhook-signature.js";
