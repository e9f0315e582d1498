// API keys: created and revoked by the account owner (identity JWT), used on data endpoints.
import type { Clock } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import { generateApiKey, hashApiKey, isWellFormedApiKey, partialKey, sameHash } from "./key-format.js";
import { KeysRepo } from "./keys.repo.js";

/** last_used is kept current to within this long (decisions §2), sparing a write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export interface CreatedKey {
  key_id: string;
  api_key: string;
  name: string;
  description: string | null;
  created_at: string;
  message: string;
}

export interface KeySummary {
  key_id: string;
  name: string;
  description: string | null;
  partial_key: string;
  created_at: string;
  last_used: string | null;
}

export class KeysService {
  private readonly repo: KeysRepo;

  constructor(
    database: Database,
    private readonly clock: Clock,
  ) {
    this.repo = new KeysRepo(database);
  }

  async create(accountId: string, name: string, description: string | null): Promise<CreatedKey> {
    const now = this.clock.now();
    const apiKey = generateApiKey();
    const id = newId("key", now.getTime());
    await this.repo.insert({
      id,
      account_id: accountId,
      name,
      description,
      key_hash: hashApiKey(apiKey),
      last4: apiKey.slice(-4),
      created_at: now.toISOString(),
      last_used_at: null,
      revoked_at: null,
    });
    return {
      key_id: id,
      api_key: apiKey,
      name,
      description,
      created_at: now.toISOString(),
      message: "Store this key now: it will not be shown again.",
    };
  }

  async list(accountId: string): Promise<KeySummary[]> {
    const rows = await this.repo.listActiveKeys(accountId);
    return rows.map((r) => ({
      key_id: r.id,
      name: r.name,
      description: r.description,
      partial_key: partialKey(r.last4),
      created_at: r.created_at,
      last_used: r.last_used_at,
    }));
  }

  revoke(accountId: string, keyId: string): Promise<boolean> {
    return this.repo.revoke(accountId, keyId, this.clock.now().toISOString());
  }

  /** The key's account and id, or undefined for a malformed, unknown or revoked key. Reads the
   *  database every time, so a revocation through any instance holds on the next request. */
  async authenticate(apiKey: string): Promise<{ accountId: string; keyId: string } | undefined> {
    if (!isWellFormedApiKey(apiKey)) return undefined;
    const hash = hashApiKey(apiKey);
    const row = await this.repo.findActiveKeyByHash(hash);
    if (!row || !sameHash(row.key_hash, hash)) return undefined;
    const now = this.clock.now();
    const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
    if (row.last_used_at === null || row.last_used_at < staleBefore) {
      await this.repo.touchLastUsed(row.id, now.toISOString(), staleBefore);
    }
    return { accountId: row.account_id, keyId: row.id };
  }
}
