// API keys: created and revoked by the account owner (identity JWT), used on data endpoints.
import type { AuditActor, AuditTrail } from "../audit/audit.service.js";
import type { Clock } from "../lib/clock.js";
import { AppError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import { runInTransaction } from "../storage/transaction.js";
import type { KeyCache } from "./key-cache.js";
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

  /** `cache` (only with a shared revocation board) spares known keys their database read. */
  constructor(
    database: Database,
    private readonly clock: Clock,
    private readonly cache?: KeyCache,
    /** Where key creation and revocation are recorded, in the same transaction as the change. */
    private readonly audit?: AuditTrail,
  ) {
    this.repo = new KeysRepo(database);
    this.db = database.db;
  }

  private readonly db: Database["db"];

  async create(
    accountId: string,
    name: string,
    description: string | null,
    actor?: AuditActor,
  ): Promise<CreatedKey> {
    const now = this.clock.now();
    const apiKey = generateApiKey();
    const id = newId("key", now.getTime());
    const row = {
      id,
      account_id: accountId,
      name,
      description,
      key_hash: hashApiKey(apiKey),
      last4: apiKey.slice(-4),
      created_at: now.toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    await runInTransaction(this.db, async (trx) => {
      await this.repo.insert(row, trx);
      if (actor && this.audit) {
        await this.audit.record(trx, accountId, {
          actor,
          action: "key.created",
          target: { kind: "key", id },
          details: { name, partial_key: partialKey(row.last4) },
        });
      }
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

  /**
   * With a key cache, the revocation is marked on the shared board first, so that no instance
   * can keep serving the key from its cache once the row says revoked; if the board cannot be
   * reached nothing is revoked and the caller may retry.
   */
  async revoke(accountId: string, keyId: string, actor?: AuditActor): Promise<boolean> {
    if (this.cache) {
      // Only this account's own active keys get a mark; anything else is the same 404 as before.
      if (!(await this.repo.isActiveKeyOf(accountId, keyId))) return false;
      try {
        await this.cache.revoked(keyId);
      } catch {
        throw new AppError(
          "SERVICE_UNAVAILABLE",
          "Cannot revoke keys right now (Redis unreachable); try again",
        );
      }
    }
    const at = this.clock.now().toISOString();
    return runInTransaction(this.db, async (trx) => {
      const revoked = await this.repo.revoke(accountId, keyId, at, trx);
      if (revoked && actor && this.audit) {
        await this.audit.record(trx, accountId, {
          actor,
          action: "key.revoked",
          target: { kind: "key", id: keyId },
        });
      }
      return revoked;
    });
  }

  /**
   * The key's account and id, or undefined for a malformed, unknown or revoked key. Either the
   * row is read, or (with a cache) the shared board confirms no revocation since it was read:
   * a revocation through any instance holds on the next request.
   */
  async authenticate(apiKey: string): Promise<KeyIdentity | undefined> {
    return (await this.beginAuthenticate(apiKey))?.settle();
  }

  /**
   * authenticate() in two steps, for the HTTP hook: a cached key answers at once while its board
   * check is in flight, so the rate-limit commands sent next share that Redis round trip. The
   * identity is only good once `settle()` returns it; undefined there means revoked.
   */
  async beginAuthenticate(apiKey: string): Promise<PendingKeyIdentity | undefined> {
    if (!isWellFormedApiKey(apiKey)) return undefined;
    const hash = hashApiKey(apiKey);
    const now = this.clock.now();
    const cached = this.cache?.peek(hash, now.getTime());
    if (cached && this.cache) {
      const confirmed = this.cache.confirm(hash, cached);
      const identity = { accountId: cached.accountId, keyId: cached.keyId };
      return {
        ...identity,
        settle: async () => {
          if (!(await confirmed)) return this.readKey(hash, now);
          await this.touch(hash, cached.keyId, cached.lastUsedAt, now);
          return identity;
        },
      };
    }
    const identity = await this.readKey(hash, now);
    return identity && { ...identity, settle: async () => identity };
  }

  /** Reads the key's row (remembering it when there is a cache) and records its use. */
  private async readKey(hash: string, now: Date): Promise<KeyIdentity | undefined> {
    const generation = await this.cache?.generationBeforeRead();
    const row = await this.repo.findActiveKeyByHash(hash);
    if (!row || !sameHash(row.key_hash, hash)) return undefined;
    if (generation !== undefined)
      this.cache?.remember(
        hash,
        { keyId: row.id, accountId: row.account_id, lastUsedAt: row.last_used_at },
        generation,
        now.getTime(),
      );
    await this.touch(hash, row.id, row.last_used_at, now);
    return { accountId: row.account_id, keyId: row.id };
  }

  /** Writes last_used when the stored value is over a minute old. */
  private async touch(hash: string, keyId: string, lastUsedAt: string | null, now: Date): Promise<void> {
    const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
    if (lastUsedAt !== null && lastUsedAt >= staleBefore) return;
    await this.repo.touchLastUsed(keyId, now.toISOString(), staleBefore);
    this.cache?.noteUsed(hash, now.toISOString());
  }
}

export interface KeyIdentity {
  accountId: string;
  keyId: string;
}

export interface PendingKeyIdentity extends KeyIdentity {
  settle(): Promise<KeyIdentity | undefined>;
}
