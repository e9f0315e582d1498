// The API's resources, one small class each: every method is one request, typed from the
// generated OpenAPI types. Rules (prices, limits, validation) stay on the server.
import type {
  ApiKeyCreateInput,
  ApiKeyList,
  ApiKeyRevoked,
  Batch,
  BatchListQuery,
  BatchPage,
  BatchResultsPage,
  BatchResultsQuery,
  Checkout,
  Connection,
  ConnectionCreateInput,
  ConnectionList,
  CreatedApiKey,
  CreatedWebhook,
  CreditBalance,
  CreditTransactionsPage,
  CreditTransactionsQuery,
  DeliveriesPage,
  DeliveriesQuery,
  Delivery,
  Lead,
  LeadArchived,
  LeadBulkResult,
  LeadCreateInput,
  LeadImportResult,
  LeadListQuery,
  LeadPage,
  LeadStats,
  LeadsArchived,
  LeadsTagged,
  LeadTagInput,
  LeadUpdateInput,
  LeadValidateResult,
  PaymentSettings,
  RevalidationInput,
  RevalidationSchedule,
  RotatedWebhookSecret,
  Sync,
  SyncCreateInput,
  SyncList,
  SyncPreview,
  SyncPreviewInput,
  Usage,
  UsageQuery,
  Webhook,
  WebhookCreateInput,
  WebhookDeleted,
  WebhookEvent,
  WebhookList,
  WebhookTestResult,
  WebhookUpdateInput,
} from "./api-types.js";
import { type CallOptions, segment, type Transport } from "./transport.js";

export class LeadsApi {
  constructor(private readonly http: Transport) {}

  /** Creates a lead; validated (and charged) unless `validate: false`. */
  create(input: LeadCreateInput, call?: CallOptions): Promise<Lead> {
    return this.http.json({ method: "POST", path: "/v1/leads", body: input }, call);
  }

  /** The account's re-validation schedule, or null when it is off. */
  revalidation(call?: CallOptions): Promise<RevalidationSchedule | null> {
    return this.http.json({ method: "GET", path: "/v1/settings/revalidation" }, call);
  }

  /** Sets the re-validation schedule; null turns it off (and answers null). */
  setRevalidation(input: RevalidationInput | null, call?: CallOptions): Promise<RevalidationSchedule | null> {
    return this.http.json({ method: "PUT", path: "/v1/settings/revalidation", body: input }, call);
  }

  get(leadId: string, call?: CallOptions): Promise<Lead> {
    return this.http.json({ method: "GET", path: `/v1/leads/${segment(leadId)}` }, call);
  }

  list(query: LeadListQuery = {}, call?: CallOptions): Promise<LeadPage> {
    return this.http.json({ method: "GET", path: "/v1/leads", query }, call);
  }

  /** Every lead matching `query`, page by page (following nextOffset). */
  async *iterate(query: LeadListQuery = {}, call?: CallOptions): AsyncGenerator<Lead> {
    let offset: number | null = query.offset ?? 0;
    while (offset !== null) {
      const page: LeadPage = await this.list({ ...query, offset }, call);
      yield* page.leads;
      offset = page.hasMore ? page.nextOffset : null;
    }
  }

  /** Partial update: `null` clears a field; customFields merge. Never validates, never charges. */
  update(leadId: string, input: LeadUpdateInput, call?: CallOptions): Promise<Lead> {
    return this.http.json({ method: "PUT", path: `/v1/leads/${segment(leadId)}`, body: input }, call);
  }

  /** Archives (soft-deletes) a lead. */
  archive(leadId: string, call?: CallOptions): Promise<LeadArchived> {
    return this.http.json({ method: "DELETE", path: `/v1/leads/${segment(leadId)}` }, call);
  }

  /** Archives 1-500 leads, all or none (404 with `details.missingLeadIds`). */
  archiveMany(leadIds: string[], call?: CallOptions): Promise<LeadsArchived> {
    return this.http.json({ method: "POST", path: "/v1/leads/archive", body: { leadIds } }, call);
  }

  /** Adds, then removes, tags on 1-500 leads, all or none. Never charges. */
  tag(leadIds: string[], change: Omit<LeadTagInput, "leadIds">, call?: CallOptions): Promise<LeadsTagged> {
    return this.http.json({ method: "POST", path: "/v1/leads/tags", body: { leadIds, ...change } }, call);
  }

  /** Creates 1-500 leads; bad items come back in `errors`. Follow `batchId` with waitForBatch. */
  bulk(
    leads: LeadCreateInput[],
    options: { validate?: boolean } = {},
    call?: CallOptions,
  ): Promise<LeadBulkResult> {
    return this.http.json({ method: "POST", path: "/v1/leads/bulk", body: { leads, ...options } }, call);
  }

  /** (Re)validates 1-500 existing leads as a batch. */
  validate(
    leadIds: string[],
    options: { webhookUrl?: string } = {},
    call?: CallOptions,
  ): Promise<LeadValidateResult> {
    return this.http.json(
      { method: "POST", path: "/v1/leads/validate", body: { leadIds, ...options } },
      call,
    );
  }

  stats(call?: CallOptions): Promise<LeadStats> {
    return this.http.json({ method: "GET", path: "/v1/leads/stats" }, call);
  }

  /** Imports a pasted list of email addresses (one per line or comma-separated); all lines or none. */
  importEmailList(
    text: string,
    options: { validate?: boolean } = {},
    call?: CallOptions,
  ): Promise<LeadImportResult> {
    return this.http.json(
      {
        method: "POST",
        path: "/v1/leads/import/emails",
        body: { text, ...(options.validate === undefined ? {} : { validate: options.validate }) },
      },
      call,
    );
  }

  /** Imports a CSV file (header row names the fields); all rows or none. */
  importCsv(
    csv: string | Uint8Array,
    options: { validate?: boolean } = {},
    call?: CallOptions,
  ): Promise<LeadImportResult> {
    return this.http.json(
      {
        method: "POST",
        path: "/v1/leads/import",
        query: { validate: options.validate },
        rawBody: { contentType: "text/csv; charset=utf-8", data: csv },
      },
      call,
    );
  }

  /** The selected leads (1-500) with their ratings, as CSV text. */
  exportSelectionCsv(leadIds: string[], call?: CallOptions): Promise<string> {
    return this.http.text(
      { method: "POST", path: "/v1/leads/export", body: { leadIds }, accept: "text/csv" },
      call,
    );
  }

  /** The account's leads with their ratings, as CSV text: all of them, or those the list's
   *  filters and search select (the same parameters as `list`, without paging). */
  exportCsv(filters: Omit<LeadListQuery, "limit" | "offset"> = {}, call?: CallOptions): Promise<string> {
    return this.http.text(
      {
        method: "GET",
        path: "/v1/leads/export",
        query: { ...filters, format: "csv" },
        accept: "text/csv",
      },
      call,
    );
  }
}

export class BatchesApi {
  constructor(private readonly http: Transport) {}

  /** The account's batches, newest first, with progress. */
  list(query: BatchListQuery = {}, call?: CallOptions): Promise<BatchPage> {
    return this.http.json({ method: "GET", path: "/v1/batches", query }, call);
  }

  get(batchId: string, call?: CallOptions): Promise<Batch> {
    return this.http.json({ method: "GET", path: `/v1/batches/${segment(batchId)}` }, call);
  }

  /** Item results in input order, a page at a time. */
  results(batchId: string, query: BatchResultsQuery = {}, call?: CallOptions): Promise<BatchResultsPage> {
    return this.http.json({ method: "GET", path: `/v1/batches/${segment(batchId)}/results`, query }, call);
  }

  /** Checks 1-10,000 websites as a batch, charged upfront. */
  createDomainBatch(domains: string[], call?: CallOptions): Promise<Batch> {
    return this.http.json({ method: "POST", path: "/v1/batch", body: { domains } }, call);
  }

  /** Checks a pasted list of domains (one per line or comma-separated) as a batch; all lines or none. */
  importDomainList(text: string, call?: CallOptions): Promise<Batch> {
    return this.http.json({ method: "POST", path: "/v1/batches/import/domains", body: { text } }, call);
  }
}

export class CreditsApi {
  constructor(private readonly http: Transport) {}

  get(call?: CallOptions): Promise<CreditBalance> {
    return this.http.json({ method: "GET", path: "/v1/credits" }, call);
  }

  /** Credits spent and added, charges and validations per UTC day (the last 30 days by default). */
  usage(query: UsageQuery = {}, call?: CallOptions): Promise<Usage> {
    return this.http.json({ method: "GET", path: "/v1/usage", query }, call);
  }

  /** The credit ledger, newest first. */
  transactions(query: CreditTransactionsQuery = {}, call?: CallOptions): Promise<CreditTransactionsPage> {
    return this.http.json({ method: "GET", path: "/v1/credits/transactions", query }, call);
  }

  /** Whether credits can be bought on this server, in which currency, and the price. */
  paymentSettings(call?: CallOptions): Promise<PaymentSettings> {
    return this.http.json({ method: "GET", path: "/v1/payments/settings" }, call);
  }

  /** Starts buying credits: a Stripe Checkout Session for `amount` whole currency units; send the
   *  buyer to the returned `url`. The credits arrive when Stripe reports the payment. */
  checkout(amount: number, call?: CallOptions): Promise<Checkout> {
    return this.http.json({ method: "POST", path: "/v1/payments/checkout", body: { amount } }, call);
  }
}

/** API key management: needs the client's identity `token` (an API key gets 403 here). */
export class KeysApi {
  constructor(private readonly http: Transport) {}

  /** The full key is in this response only. */
  create(input: ApiKeyCreateInput, call?: CallOptions): Promise<CreatedApiKey> {
    return this.http.json({ method: "POST", path: "/v1/auth/keys", auth: "identity", body: input }, call);
  }

  list(call?: CallOptions): Promise<ApiKeyList> {
    return this.http.json({ method: "GET", path: "/v1/auth/keys", auth: "identity" }, call);
  }

  revoke(keyId: string, call?: CallOptions): Promise<ApiKeyRevoked> {
    return this.http.json(
      { method: "DELETE", path: `/v1/auth/keys/${segment(keyId)}`, auth: "identity" },
      call,
    );
  }
}

/** Google Sheets and HubSpot connections; credentials go in on create and never come back. */
export class ConnectionsApi {
  constructor(private readonly http: Transport) {}

  /** Verifies the credentials with the provider before storing them (422 when refused). */
  create(input: ConnectionCreateInput, call?: CallOptions): Promise<Connection> {
    return this.http.json({ method: "POST", path: "/v1/connections", body: input }, call);
  }

  list(call?: CallOptions): Promise<ConnectionList> {
    return this.http.json({ method: "GET", path: "/v1/connections" }, call);
  }

  get(connectionId: string, call?: CallOptions): Promise<Connection> {
    return this.http.json({ method: "GET", path: this.path(connectionId) }, call);
  }

  /** Deletes the connection and its stored credentials (204, no body). */
  async delete(connectionId: string, call?: CallOptions): Promise<void> {
    await this.http.send({ method: "DELETE", path: this.path(connectionId) }, call);
  }

  /** Starts a sync: a sheet (spreadsheetId + sheet) or HubSpot contacts (optionally one listId). */
  startSync(connectionId: string, input: SyncCreateInput, call?: CallOptions): Promise<Sync> {
    return this.http.json({ method: "POST", path: `${this.path(connectionId)}/syncs`, body: input }, call);
  }

  /** What a sync would read (mapping, first 5 rows or contacts, cost), without writing anything. */
  preview(connectionId: string, input: SyncPreviewInput, call?: CallOptions): Promise<SyncPreview> {
    return this.http.json({ method: "POST", path: `${this.path(connectionId)}/preview`, body: input }, call);
  }

  /** The connection's last 100 syncs, newest first. */
  syncs(connectionId: string, call?: CallOptions): Promise<SyncList> {
    return this.http.json({ method: "GET", path: `${this.path(connectionId)}/syncs` }, call);
  }

  /** Stops a watch: no further passes start (one already running finishes). 204, no body. */
  async stopWatch(connectionId: string, watchId: string, call?: CallOptions): Promise<void> {
    await this.http.send(
      { method: "DELETE", path: `${this.path(connectionId)}/watches/${segment(watchId)}` },
      call,
    );
  }

  getSync(syncId: string, call?: CallOptions): Promise<Sync> {
    return this.http.json({ method: "GET", path: `/v1/syncs/${segment(syncId)}` }, call);
  }

  private path(connectionId: string): string {
    return `/v1/connections/${segment(connectionId)}`;
  }
}

export class WebhooksApi {
  constructor(private readonly http: Transport) {}

  /** Registers an endpoint; the signing secret is in this response (and rotations) only. */
  create(input: WebhookCreateInput, call?: CallOptions): Promise<CreatedWebhook> {
    return this.http.json({ method: "POST", path: "/v1/webhooks", body: input }, call);
  }

  list(call?: CallOptions): Promise<WebhookList> {
    return this.http.json({ method: "GET", path: "/v1/webhooks" }, call);
  }

  get(webhookId: string, call?: CallOptions): Promise<Webhook> {
    return this.http.json({ method: "GET", path: this.path(webhookId) }, call);
  }

  update(webhookId: string, input: WebhookUpdateInput, call?: CallOptions): Promise<Webhook> {
    return this.http.json({ method: "PATCH", path: this.path(webhookId), body: input }, call);
  }

  delete(webhookId: string, call?: CallOptions): Promise<WebhookDeleted> {
    return this.http.json({ method: "DELETE", path: this.path(webhookId) }, call);
  }

  /** Replaces the secret at once; the old one stops verifying. */
  rotateSecret(webhookId: string, call?: CallOptions): Promise<RotatedWebhookSecret> {
    return this.http.json({ method: "POST", path: `${this.path(webhookId)}/rotate-secret` }, call);
  }

  /** Sends a signed test delivery of `event` now and reports how the endpoint answered. */
  test(webhookId: string, event: WebhookEvent, call?: CallOptions): Promise<WebhookTestResult> {
    return this.http.json({ method: "POST", path: `${this.path(webhookId)}/test`, body: { event } }, call);
  }

  deliveries(webhookId: string, query: DeliveriesQuery = {}, call?: CallOptions): Promise<DeliveriesPage> {
    return this.http.json({ method: "GET", path: `${this.path(webhookId)}/deliveries`, query }, call);
  }

  /** Sends a past delivery again as a new delivery. */
  redeliver(webhookId: string, deliveryId: string, call?: CallOptions): Promise<Delivery> {
    return this.http.json(
      { method: "POST", path: `${this.path(webhookId)}/deliveries/${segment(deliveryId)}/redeliver` },
      call,
    );
  }

  private path(webhookId: string): string {
    return `/v1/webhooks/${segment(webhookId)}`;
  }
}
