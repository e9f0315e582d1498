// Row types of every table, as Kysely sees them. Portable column types on both dialects:
// timestamps are ISO 8601 UTC text (sortable), booleans are 0/1 integers, JSON is text, money
// is integer milli-credits. See docs/decisions/0002-portable-storage-types.md.

export interface AccountsTable {
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
}

export interface CreditLedgerTable {
  id: string;
  account_id: string;
  /** Signed change in milli-credits: grants positive, debits negative. */
  delta_milli: number;
  balance_after_milli: number;
  kind: "signup" | "grant" | "debit";
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
}

export interface Schema {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  credit_ledger: CreditLedgerTable;
  events: EventsTable;
  jobs: JobsTable;
}
