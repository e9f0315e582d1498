// API keys: created and revoked by the account owner (identity JWT), used on data endpoints
// (secret keys, within their permissions) and the widget endpoints (publishable keys).

import type { AuditActor, AuditTrail } from "../audit/audit.service.js";
import type { Clock } from "../lib/clock.js";
import { dataSpaceOf, liveAccountOf } from "../lib/data-space.js";
import { type FieldError, fail } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import { runInTransaction } from "../storage/transaction.js";
import type { KeyCache } from "./key-cache.js";
import {
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  keyTypeOf,
  partialKey,
  sameHash,
} from "./key-format.js";
import { type KeyInput, policyColumns, policyFromInput, policyOfRow } from "./key-input.js";
import type { CaptchaProvider, KeyMode, KeyPolicy, Permission, WidgetLimits } from "./key-policy.js";
import { type KeysRepo, prepareActiveKeyByHash } from "./keys.repo.js";

/** last_used is kept current to within this long (decisions §2), sparing a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Publishable keys whose hashes are kept (they are public); past this the map starts over. */
const MAX_PUBLIC_HASHES = 10_000;

interface KeyFacts {
  type: KeyPolicy["type"];
  mode: KeyMode;
  permissions: Permission[] | null;
  allowedIps: string[] | null;
  allowedOrigins: string[] | null;
  expiresAt: string | null;
}

export interface CreatedKey extends KeyFacts {
  key_id: string;
  api_key: string;
  name: string;
  description: string | null;
  created_at: string;
  message: string;
}

export interface KeySummary extends KeyFacts {
  key_id: string;
  name: string;
  description: string | null;
  partial_key: string;
  /** Publishable keys only: they are public, so listings show them whole. */
  api_key?: string;
  created_at: string;
  last_used: string | null;
  /** The team member who created it (mem_...); null for keys made before teams or by the CLI. */
  created_by: string | null;
  /** Publishable keys: their own abuse limits and CAPTCHA; null for secret keys. */
  widget: { limits: Partial<WidgetLimits>; captcha: CaptchaProvider | null } | null;
}

export type CreateKeyOutcome =
  | { kind: "created"; key: CreatedKey }
  | { kind: "invalid"; errors: FieldError[] };

const factsOf = (p: KeyPolicy): KeyFacts => ({
  type: p.type,
  mode: p.mode,
  permissions: p.permissions,
  allowedIps: p.allowedIps,
  allowedOrigins: p.allowedOrigins,
  expiresAt: p.expiresAt,
});

export class KeysService {
  /** `repo`: the keys table's repository, built by the module's factory. `cache` (only with a
   *  shared revocation board) spares known keys their database read. */
  constructor(
    private readonly repo: KeysRepo,
    database: Database,
    private readonly clock: Clock,
    private readonly cache?: KeyCache,
    /** Where key creation and revocation are recorded, in the same transaction as the change. */
    private readonly audit?: AuditTrail,
  ) {
    this.db = database.db;
    this.activeKeyByHash = prepareActiveKeyByHash(database);
  }

  private readonly db: Database["db"];
  private readonly activeKeyByHash: ReturnType<typeof prepareActiveKeyByHash>;

  /** A live secret key with every permission (the CLI's `keys create`). */
  async create(
    accountId: string,
    name: string,
    description: string | null,
    actor?: AuditActor,
  ): Promise<CreatedKey> {
    const outcome = await this.createKey(accountId, name, description, {}, actor);
    if (outcome.kind !== "created") throw new Error("a default key policy is always valid");
    return outcome.key;
  }

  async createKey(
    accountId: string,
    name: string,
    description: string | null,
    input: KeyInput,
    actor?: AuditActor,
    createdByMember: string | null = null,
  ): Promise<CreateKeyOutcome> {
    const now = this.clock.now();
    const checked = policyFromInput(input, now);
    if (!checked.ok) return { kind: "invalid", errors: checked.errors };
    const { policy } = checked;
    const apiKey = generateApiKey(undefined, policy.type);
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
      ...policyColumns(policy),
      public_key: policy.type === "publishable" ? apiKey : null,
      created_by_member: createdByMember,
    };
    await runInTransaction(this.db, async (trx) => {
      await this.repo.insert(trx, row);
      if (actor && this.audit) {
        await this.audit.record(trx, accountId, {
          actor,
          action: "key.created",
          target: { kind: "key", id },
          details: { name, type: policy.type, mode: policy.mode, partial_key: partialKey(row.last4) },
        });
      }
    });
    return {
      kind: "created",
      key: {
        key_id: id,
        api_key: apiKey,
        name,
        description,
        created_at: now.toISOString(),
        ...factsOf(policy),
        message:
          policy.type === "publishable"
            ? "A publishable key: put it in your pages' widget script tag. It works only on the widget endpoints, from the allowed origins."
            : "Store this key now: it will not be shown again.",
      },
    };
  }

  async list(accountId: string): Promise<KeySummary[]> {
    const rows = await this.repo.listActiveKeys(this.db, accountId);
    return rows.map((r) => {
      const policy = policyOfRow(r);
      return {
        key_id: r.id,
        name: r.name,
        description: r.description,
        partial_key: partialKey(r.last4, policy.type),
        ...(policy.type === "publishable" && r.public_key ? { api_key: r.public_key } : {}),
        ...factsOf(policy),
        // Publishable keys: the key's own abuse limits (the caller fills in the server's defaults).
        widget:
          policy.type === "publishable"
            ? { limits: policy.widgetLimits ?? {}, captcha: policy.captcha }
            : null,
        created_at: r.created_at,
        last_used: r.last_used_at,
        created_by: r.created_by_member ?? null,
      };
    });
  }

  /**
   * With a key cache, the revocation is marked on the shared board first, so that no instance
   * can keep serving the key from its cache once the row says revoked; if the board cannot be
   * reached nothing is revoked and the caller may retry.
   */
  async revoke(accountId: string, keyId: string, actor?: AuditActor): Promise<boolean> {
    if (this.cache) {
      // Only this account's own active keys get a mark; anything else is the same 404 as before.
      if (!(await this.repo.isActiveKeyOf(this.db, accountId, keyId))) return false;
      try {
        await this.cache.revoked(keyId);
      } catch {
        throw fail({
          kind: "unavailable",
          message: "Cannot revoke keys right now (Redis unreachable); try again",
        });
      }
    }
    const at = this.clock.now().toISOString();
    return runInTransaction(this.db, async (trx) => {
      const revoked = await this.repo.revoke(trx, accountId, keyId, at);
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

  /** Whether `keyId` is an active key acting on this data space (a widget token's key, at
   *  confirmation): a test-mode key's tokens are confirmed only by test-mode keys, and vice versa. */
  async activeKeyOf(accountId: string, keyId: string): Promise<{ mode: KeyMode } | undefined> {
    const row = await this.repo.findActiveKeyById(this.db, keyId);
    const mode: KeyMode = row?.mode === "test" ? "test" : "live";
    if (!row || dataSpaceOf(row.account_id, mode) !== accountId) return undefined;
    return { mode };
  }

  /** An active key of the account `accountId` belongs to (live or test space), with the data space
   *  it acts on: whose widget statistics a report on that key reads. */
  async spaceOfKey(
    accountId: string,
    keyId: string,
  ): Promise<{ accountId: string; mode: KeyMode; type: KeyPolicy["type"] } | undefined> {
    const row = await this.repo.findActiveKeyById(this.db, keyId);
    if (!row || row.account_id !== liveAccountOf(accountId)) return undefined;
    const mode: KeyMode = row.mode === "test" ? "test" : "live";
    const type = row.type === "publishable" ? "publishable" : "secret";
    return { accountId: dataSpaceOf(row.account_id, mode), mode, type };
  }

  /**
   * The key's data space (its account, or that account's test space for a test-mode key: ADR
   * 0051), id and policy, or undefined for a malformed, unknown or revoked key. Either
   * the row is read, or (with a cache) the shared board confirms no revocation since it was read:
   * a revocation through any instance holds on the next request. Expiry, addresses and
   * permissions are the caller's to apply (src/http/auth.ts), from the policy returned.
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
    const hash = this.hashOf(apiKey);
    if (hash === undefined) return undefined;
    const now = this.clock.now();
    const cached = this.cache?.peek(hash, now.getTime());
    if (cached && this.cache) {
      const confirmed = this.cache.confirm(hash, cached);
      const identity = { accountId: cached.accountId, keyId: cached.keyId, policy: cached.policy };
      const keys = this;
      // A widget check's hot path (ADR 0057): fields written out, not spread (a spread's copy takes
      // its hidden class from V8's shared root), and `settle` a method, not an arrow (tsx names
      // arrows with Object.defineProperty each time one is made).
      return {
        accountId: cached.accountId,
        keyId: cached.keyId,
        policy: cached.policy,
        async settle() {
          if (!(await confirmed)) return keys.readKey(hash, now);
          await keys.touch(hash, cached.keyId, cached.lastUsedAt, now);
          return identity;
        },
      };
    }
    const identity = await this.readKey(hash, now);
    return identity && { ...identity, settle: async () => identity };
  }

  /**
   * authenticate()'s answer when it is known at once, without a promise (ADR 0057): a cached key
   * that a board in this process confirms (embedded SQLite) and whose last use needs no write.
   * Undefined: ask authenticate() or beginAuthenticate() (a miss, a revoked or expired entry, a
   * shared board, a last use to record), which answer as before.
   */
  authenticateNow(apiKey: string): KeyIdentity | undefined {
    if (!this.cache) return undefined;
    const hash = this.hashOf(apiKey);
    if (hash === undefined) return undefined;
    const nowMs = this.clock.now().getTime();
    const cached = this.cache.peek(hash, nowMs);
    if (!cached || this.cache.confirmNow(hash, cached) !== true) return undefined;
    if (this.lastUseIsStale(cached.lastUsedAt, nowMs)) return undefined;
    return { accountId: cached.accountId, keyId: cached.keyId, policy: cached.policy };
  }

  /** True when last_used is due a write: the stored value is over a minute old (or unset). */
  private lastUseIsStale(lastUsedAt: string | null, nowMs: number): boolean {
    return lastUsedAt === null || lastUsedAt < this.staleBefore(nowMs);
  }

  /** The ISO time a minute before `nowMs`, worked out once per millisecond, not per request. */
  private staleBefore(nowMs: number): string {
    if (nowMs !== this.staleBeforeAt.ms)
      this.staleBeforeAt = { ms: nowMs, iso: new Date(nowMs - LAST_USED_RESOLUTION_MS).toISOString() };
    return this.staleBeforeAt.iso;
  }

  private staleBeforeAt = { ms: Number.NaN, iso: "" };

  /**
   * The key's hash, or undefined when it is malformed. Publishable keys are public and come with
   * every visitor's widget check, so their hashes are kept (a bounded map); secret keys are hashed
   * each time and never kept in clear.
   */
  private hashOf(apiKey: string): string | undefined {
    const known = this.publicHashes.get(apiKey);
    if (known !== undefined) return known;
    if (!isWellFormedApiKey(apiKey)) return undefined;
    const hash = hashApiKey(apiKey);
    if (keyTypeOf(apiKey) === "publishable") {
      if (this.publicHashes.size >= MAX_PUBLIC_HASHES) this.publicHashes.clear();
      this.publicHashes.set(apiKey, hash);
    }
    return hash;
  }

  private readonly publicHashes = new Map<string, string>();

  /** Reads the key's row (remembering it when there is a cache) and records its use. */
  private async readKey(hash: string, now: Date): Promise<KeyIdentity | undefined> {
    const generation = await this.cache?.generationBeforeRead();
    const row = await this.activeKeyByHash.first({ hash });
    if (!row || !sameHash(row.key_hash, hash)) return undefined;
    const policy = policyOfRow(row);
    const accountId = dataSpaceOf(row.account_id, policy.mode);
    if (generation !== undefined)
      this.cache?.remember(
        hash,
        { keyId: row.id, accountId, lastUsedAt: row.last_used_at, policy },
        generation,
        now.getTime(),
      );
    await this.touch(hash, row.id, row.last_used_at, now);
    return { accountId, keyId: row.id, policy };
  }

  /** Writes last_used when the stored value is over a minute old. */
  private async touch(hash: string, keyId: string, lastUsedAt: string | null, now: Date): Promise<void> {
    if (!this.lastUseIsStale(lastUsedAt, now.getTime())) return;
    const staleBefore = this.staleBefore(now.getTime());
    await this.repo.touchLastUsed(this.db, keyId, now.toISOString(), staleBefore);
    this.cache?.noteUsed(hash, now.toISOString());
  }
}

export interface KeyIdentity {
  /** The data space the key acts on: its account, or the account's test space (`~test`). */
  accountId: string;
  keyId: string;
  /** What the key may do and from where; cached with the key (a policy never changes after creation). */
  policy: KeyPolicy;
}

export interface PendingKeyIdentity extends KeyIdentity {
  settle(): Promise<KeyIdentity | undefined>;
}
