// Row types of every table, as Kysely sees them. Portable column types on both dialects:
// timestamps are ISO 8601 UTC text (sortable), booleans are 0/1 integers, JSON is text, money
// is integer milli-credits. See docs/decisions/0002-portable-storage-types.md.

import type { ColumnType } from "kysely";

/** A nullable text column that inserts may leave out (columns added after the table). */
type OptionalText = ColumnType<string | null, string | null | undefined, string | null>;

interface AccountsTable {
  id: string;
  balance_milli: number;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  key_hash: string;
  last4: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Migration 0050: "secret" | "publishable". */
  type: ColumnType<string, string | undefined, string>;
  /** "live" | "test". */
  mode: ColumnType<string, string | undefined, string>;
  /** JSON arrays; NULL: unrestricted. */
  permissions: OptionalText;
  allowed_ips: OptionalText;
  allowed_origins: OptionalText;
  expires_at: OptionalText;
  /** JSON: { limits, captcha } of a publishable key. */
  widget_settings: OptionalText;
  /** A publishable key in clear; NULL for secret keys. */
  public_key: OptionalText;
  /** The team member who created the key (migration 0060); null for older keys and the CLI. */
  created_by_member: OptionalText;
}

export interface CreditLedgerTable {
  id: string;
  account_id: string;
  /** Signed change in milli-credits: grants positive, debits negative. */
  delta_milli: number;
  balance_after_milli: number;
  kind: "signup" | "grant" | "purchase" | "debit";
  reason: string;
  reference: string | null;
  idempotency_key: string | null;
  created_at: string;
}

/** Outbox of domain events, written in the transaction of the change that caused them. */
export interface EventsTable {
  id: string;
  account_id: string;
  type: string;
  payload: string;
  created_at: string;
  /** 0 until the webhook dispatcher has fanned the event out to deliveries. */
  dispatched: number;
}

/** Background jobs of the embedded (SQLite) queue runner; see src/jobs/sqlite-job-store.ts. */
export interface JobsTable {
  id: string;
  name: string;
  /** JSON object. */
  data: string;
  state: "created" | "retry" | "active" | "completed" | "failed";
  singleton_key: string | null;
  retry_limit: number;
  /** Failed attempts so far; the attempt being run sees the count of those before it. */
  retry_count: number;
  retry_delay_ms: number;
  retry_backoff: number;
  expire_in_ms: number;
  start_after: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** Lease end of an active job: past it the job counts as a failed attempt (its process died). */
  locked_until: string | null;
  /** Changes on every claim so a late completion from an expired attempt cannot touch a newer one. */
  lease_token: string | null;
  /** JSON `{ message, stack? }` of the last failure. */
  last_error: string | null;
  /** The queue a copy of this job goes to when it fails for good (its onExhausted hook). */
  dead_letter?: string | null;
  /** Dead-letter copies: JSON `{ message, stack? }` of the failure that ended the original job. */
  output?: string | null;
}

/** Webhook events of a payment provider already handled: a replay is recognised by its id. */
interface PaymentEventsTable {
  event_id: string;
  provider: string;
  type: string;
  received_at: string;
}

/** One row per checkout session leadcheck created: what it sold, to whom. The webhook grants from it. */
export interface CheckoutSessionsTable {
  session_id: string;
  provider: string;
  account_id: string;
  /** The price, in the currency's smallest unit. */
  amount_minor: number;
  currency: string;
  milli_credits: number;
  created_at: string;
}

/** One row per paid checkout session: a session grants credits once. */
export interface PaymentsTable {
  session_id: string;
  provider: string;
  account_id: string;
  /** The provider's payment id (Stripe: the PaymentIntent, else the session). */
  payment_id: string;
  event_id: string;
  /** What was paid, in the currency's smallest unit. */
  amount_minor: number;
  currency: string;
  milli_credits: number;
  ledger_entry_id: string;
  created_at: string;
}

export interface Schema {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  credit_ledger: CreditLedgerTable;
  payment_events: PaymentEventsTable;
  checkout_sessions: CheckoutSessionsTable;
  payments: PaymentsTable;
  events: EventsTable;
  jobs: JobsTable;
  leads: LeadsTable;
  batches: BatchesTable;
  batch_items: BatchItemsTable;
  validation_jobs: ValidationJobsTable;
  usage_daily: UsageDailyTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  connections: ConnectionsTable;
  syncs: SyncsTable;
  sync_items: SyncItemsTable;
  sync_watches: SyncWatchesTable;
  revalidation_schedules: RevalidationSchedulesTable;
  audit_entries: AuditEntriesTable;
  audit_chain_heads: AuditChainHeadsTable;
  erasure_tombstones: ErasureTombstonesTable;
  account_settings: AccountSettingsTable;
  account_exports: AccountExportsTable;
  widget_stats_daily: WidgetStatsDailyTable;
}

/** One account's re-validation schedule (src/revalidation, migration 0033). */
export interface RevalidationSchedulesTable {
  account_id: string;
  older_than_days: number;
  every_hours: number;
  max_milli_credits_per_run: number;
  /** When the next run is due; also the run's key (its batch's source). */
  next_run_at: string;
  /** Set while a run holds the schedule; a claim older than the lease is taken over. */
  claimed_at: string | null;
  last_run_at: string | null;
  /** started | nothing_stale | insufficient_credits | limited */
  last_run_status: string | null;
  last_run_leads: number | null;
  last_run_batch_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface SyncWatchesTable {
  id: string;
  connection_id: string;
  account_id: string;
  /** JSON: the sync request the passes repeat. */
  params: string;
  every_minutes: number;
  created_at: string;
  stopped_at: string | null;
}

/** A Google Sheets or HubSpot connection; `credentials` is ciphertext (integrations/credentials-cipher.ts). */
export interface ConnectionsTable {
  id: string;
  account_id: string;
  kind: string;
  name: string;
  status: string;
  status_reason: string | null;
  client_email: string | null;
  /** HubSpot: the portal id the token reaches (account-info API, migration 0034). */
  portal_id?: string | null;
  credentials: string;
  created_at: string;
  updated_at: string;
  last_sync_at: string | null;
  deleted_at: string | null;
}

export interface SyncsTable {
  id: string;
  connection_id: string;
  account_id: string;
  status: string;
  /** import | validate | wait | write | done */
  phase: string;
  /** JSON: the request (spreadsheetId, sheet, listId, validate, writeBack, mapping). */
  params: string;
  /** JSON: where the current phase stopped. */
  cursor: string | null;
  /** JSON: read, created, matched, validated, written, skipped, failed. */
  counts: string;
  /** JSON array of { item, message }. */
  errors: string;
  batch_id: string | null;
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  /** The watch this pass belongs to (migration 0032). */
  watch_id?: string | null;
  /** HubSpot watch passes: contacts modified at or after this instant (epoch ms). */
  since_ms?: number | null;
}

/** One row or contact of a sync and the lead it became. */
export interface SyncItemsTable {
  sync_id: string;
  /** The normalized email (sheets) or the contact id (HubSpot). */
  item_key: string;
  seq: number;
  lead_id: string;
  /** created | matched */
  outcome: string;
  written: number;
}

export interface LeadsTable {
  id: string;
  account_id: string;
  email: string;
  email_lower: string;
  /** The address with provider aliases folded (src/intel/normalized-email.ts); duplicate checks use it. */
  normalized_email: string;
  website: string | null;
  first_name: string | null;
  last_name: string | null;
  company: string | null;
  title: string | null;
  phone: string | null;
  linkedin: string | null;
  twitter: string | null;
  service_category: string | null;
  service_subcategory: string | null;
  campaign: string | null;
  /** JSON array of strings. */
  tags: string;
  notes: string | null;
  priority: string;
  active: number;
  /** JSON object. */
  custom_fields: string;
  source: string;
  /** google_sheets | hubspot for a synced lead (migration 0031). */
  external_source?: string | null;
  /** `<spreadsheetId>!<sheet>` or the HubSpot contact id. */
  external_id?: string | null;
  /** The HubSpot portal id of a contact's account (migration 0034); null for sheets. */
  external_account?: string | null;
  /** When its verdict was last written back. */
  synced_at?: string | null;
  /** JSON object. */
  metadata: string;
  validation_status: string;
  rating: number;
  recommendation: string;
  quality: string;
  /** JSON array of rating factors. */
  rating_factors: string;
  email_valid: number | null;
  email_catch_all: number | null;
  email_disposable: number | null;
  email_service: string | null;
  email_score: number | null;
  email_type: string | null;
  email_risk: string | null;
  email_status: string | null;
  /** One of EMAIL_REASONS (checks/email), null until validated. */
  email_reason: string | null;
  domain_status: string | null;
  domain_http_status: number | null;
  domain_final_url: string | null;
  domain_ssl_valid: number | null;
  domain_parked: number | null;
  /** parked | placeholder, when the website is parked. */
  website_parked_kind: string | null;
  /** JSON: the parked evidence (signal, value, provider, type, weight) when the website is parked. */
  website_parked_evidence: string | null;
  domain_response_time_ms: number | null;
  domain_score: number | null;
  /** Days since the domain's registration, as of the validation (RDAP); null when unknown. */
  domain_age_days: number | null;
  /** 1 when the domain or an MX address is on a block list, 0 when not, null when unknown. */
  domain_listed: number | null;
  /** The corrected address when the email's domain looks mistyped. */
  did_you_mean: string | null;
  /** JSON: the lead's domain facts (see LeadDomainFacts in src/leads/lead-view.ts). */
  domain_intel: string | null;
  /** JSON: the engines' detailed results. */
  validation_details: string | null;
  validated_at: string | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface BatchesTable {
  id: string;
  account_id: string;
  kind: "lead_validation" | "domain_check";
  status: "processing" | "completed" | "failed";
  total: number;
  completed: number;
  valid: number;
  invalid: number;
  failed: number;
  /** Highest progress quarter (1-3) already announced with batch.progress. */
  progress_quarter: number;
  webhook_url: string | null;
  source: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export interface BatchItemsTable {
  id: string;
  batch_id: string;
  account_id: string;
  seq: number;
  lead_id: string | null;
  input: string;
  /** Work is grouped by this (the email domain or website host) so one lookup serves many items. */
  group_key: string;
  status: "pending" | "done" | "failed";
  verdict: string | null;
  result: string | null;
  error: string | null;
  completed_at: string | null;
}

export interface ValidationJobsTable {
  id: string;
  account_id: string;
  type: "email" | "website";
  input: string;
  status: "processing" | "completed" | "failed" | "timeout";
  result: string | null;
  error: string | null;
  webhook_url: string | null;
  attempts: number;
  created_at: string;
  completed_at: string | null;
  deadline_at: string;
  expires_at: string;
}

/** Widget counts per publishable key, UTC day and metric (src/widget/widget-stats.ts, migration 0052). */
interface WidgetStatsDailyTable {
  account_id: string;
  key_id: string;
  day: string;
  metric: string;
  count: number;
}

interface UsageDailyTable {
  account_id: string;
  day: string;
  validations: number;
}

export interface WebhooksTable {
  id: string;
  account_id: string;
  name: string;
  url: string;
  description: string | null;
  /** JSON array of event kinds. */
  events: string;
  active: number;
  /** The signing key itself (`whsec_...`): HMAC needs it, so it cannot be stored as a hash. */
  secret: string;
  max_retries: number;
  /** JSON array of milliseconds. */
  retry_delays: string;
  total_attempts: number;
  successful_deliveries: number;
  failed_deliveries: number;
  last_delivery_at: string | null;
  last_success_at: string | null;
  secret_rotated_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  account_id: string;
  event_id: string;
  event: string;
  url: string;
  /** The exact body sent (and signed) on every attempt. */
  payload: string;
  status: "pending" | "success" | "failed";
  http_status: number | null;
  response_body: string | null;
  error_message: string | null;
  attempts: number;
  /** JSON array of attempt records. */
  attempt_log: string;
  is_test: number;
  redelivery_of: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Append-only audit log (src/audit), hash-chained per account; see docs/decisions/0040. */
export interface AuditEntriesTable {
  id: string;
  account_id: string;
  /** 1, 2, 3, ... per account, without gaps. */
  seq: number;
  actor_kind: "member" | "key" | "admin" | "system";
  actor_id: string;
  action: string;
  target_kind: string;
  target_id: string;
  ip: string | null;
  user_agent: string | null;
  /** Canonical JSON object (sorted keys), exactly the text that was hashed. */
  details: string;
  created_at: string;
  /** The account's previous entry's hash; 64 zeros for the first. */
  prev_hash: string;
  /** SHA-256 hex over the canonical encoding of every field above (src/audit/audit-hash.ts). */
  hash: string;
}

/** The newest entry of each account's chain: appends lock and advance it. */
interface AuditChainHeadsTable {
  account_id: string;
  seq: number;
  hash: string;
}

/** What remains of an erased lead (src/erasure): no personal data but a keyed hash of its address. */
export interface ErasureTombstonesTable {
  lead_id: string;
  account_id: string;
  erased_at: string;
  /** HMAC-SHA256 hex of the normalized email; null when the server has no key to make one. */
  email_hmac: string | null;
}

/** Per-account data settings; null days fall back to the server's defaults. */
export interface AccountSettingsTable {
  account_id: string;
  archived_lead_days: number | null;
  batch_item_days: number | null;
  delivery_body_days: number | null;
  audit_days: number | null;
  /** 1: an erased address is refused when created or imported again. */
  suppress_erased: number;
  updated_at: string;
}

/** Account export archives (src/account-export), downloadable by token for 24 hours. */
export interface AccountExportsTable {
  id: string;
  account_id: string;
  status: "pending" | "ready" | "failed";
  /** SHA-256 hex of the download token. */
  token_hash: string;
  /** gzipped JSON Lines; null until ready and after expiry. */
  archive: Buffer | null;
  size_bytes: number | null;
  error: string | null;
  created_at: string;
  completed_at: string | null;
  expires_at: string;
}
