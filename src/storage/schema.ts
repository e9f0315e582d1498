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

export interface Schema {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  credit_ledger: CreditLedgerTable;
  events: EventsTable;
}
