// API keys seen recently, so that a request with a known key costs no database read. Across
// instances this is only safe with a shared board that every revocation marks before it is
// answered: each cache hit asks the board, in one Redis command, whether the key was revoked and
// whether the board is still the one the entry was checked against (a restarted Redis has lost its
// marks, and its new generation voids every entry). Embedded SQLite has one API process, which
// makes every revocation itself, so its board lives in that process's memory. PostgreSQL without
// Redis has no board: there every request reads the key's row. See ADR 0009.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { KeyPolicy } from "./key-policy.js";

/** How long a revocation mark outlives the revocation: far longer than any cache entry. */
const MARK_TTL_S = 3600;

export interface BoardState {
  generation: string | null;
  revoked: boolean;
}

export interface RevocationBoard {
  /** The board's current generation, creating one when there is none. */
  generation(): Promise<string>;
  /** One round trip: the current generation and whether `keyId` is marked revoked. */
  check(keyId: string): Promise<BoardState>;
  /** The same answer at once, from a board in this process (undefined on a shared board). */
  checkNow?(keyId: string): BoardState;
  /** Marks `keyId` revoked for every instance. */
  markRevoked(keyId: string): Promise<void>;
}

export class RedisRevocationBoard implements RevocationBoard {
  private readonly generationKey: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = "lc:keys:",
  ) {
    this.generationKey = `${prefix}generation`;
  }

  async generation(): Promise<string> {
    const current = await this.redis.get(this.generationKey);
    if (current) return current;
    await this.redis.set(this.generationKey, randomUUID(), "NX");
    const created = await this.redis.get(this.generationKey);
    if (!created) throw new Error("revocation board: generation vanished");
    return created;
  }

  async check(keyId: string): Promise<BoardState> {
    const [generation, mark] = await this.redis.mget(this.generationKey, `${this.prefix}revoked:${keyId}`);
    return { generation: generation ?? null, revoked: mark !== null && mark !== undefined };
  }

  async markRevoked(keyId: string): Promise<void> {
    await this.redis.set(`${this.prefix}revoked:${keyId}`, "1", "EX", MARK_TTL_S);
  }
}

/**
 * The board of a deployment whose one process makes every revocation (embedded SQLite: the CLI
 * commands that run beside it create keys but never revoke them).
 */
export class LocalRevocationBoard implements RevocationBoard {
  private readonly id = randomUUID();
  /** keyId -> when its mark may be forgotten (ms). */
  private readonly marks = new Map<string, number>();

  constructor(private readonly nowMs: () => number) {}

  async generation(): Promise<string> {
    return this.id;
  }

  async check(keyId: string): Promise<BoardState> {
    return this.checkNow(keyId);
  }

  checkNow(keyId: string): BoardState {
    const until = this.marks.get(keyId);
    return { generation: this.id, revoked: until !== undefined && until > this.nowMs() };
  }

  async markRevoked(keyId: string): Promise<void> {
    const now = this.nowMs();
    for (const [id, until] of this.marks) if (until <= now) this.marks.delete(id);
    this.marks.set(keyId, now + MARK_TTL_S * 1000);
  }
}

export interface CachedKey {
  keyId: string;
  accountId: string;
  lastUsedAt: string | null;
  /** Immutable after creation, so caching it is safe; expiry is judged on every request. */
  policy: KeyPolicy;
}

interface Entry extends CachedKey {
  generation: string;
  expiresAtMs: number;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly board: RevocationBoard,
    private readonly options: { ttlMs: number; maxEntries: number },
  ) {}

  /** The live cache entry for this hash, unconfirmed; see confirm(). */
  peek(hash: string, nowMs: number): CachedKey | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAtMs > nowMs) return entry;
    this.entries.delete(hash);
    return undefined;
  }

  /**
   * Whether the board confirms a peeked entry: not revoked, same generation. Never rejects (an
   * unreachable board is a "no"); a refused entry is dropped. The command goes out at once, so
   * a caller's own Redis commands issued before it awaits share its round trip.
   */
  async confirm(hash: string, key: CachedKey): Promise<boolean> {
    const state = await this.board.check(key.keyId).catch(() => undefined);
    const entry = this.entries.get(hash);
    if (state && !state.revoked && entry && state.generation === entry.generation) return true;
    this.entries.delete(hash);
    return false;
  }

  /**
   * confirm() when the board is in this process: true or false at once (a refused entry is
   * dropped), undefined when the board must be asked.
   */
  confirmNow(hash: string, key: CachedKey): boolean | undefined {
    const state = this.board.checkNow?.(key.keyId);
    if (state === undefined) return undefined;
    const entry = this.entries.get(hash);
    if (!state.revoked && entry && state.generation === entry.generation) return true;
    this.entries.delete(hash);
    return false;
  }

  /**
   * The board's generation to remember with a row read next, or undefined when the board cannot
   * be reached (then nothing is cached). Read BEFORE the row: a revocation marked after this
   * read is still seen by the entry's next check.
   */
  async generationBeforeRead(): Promise<string | undefined> {
    return this.board.generation().catch(() => undefined);
  }

  remember(hash: string, key: CachedKey, generation: string, nowMs: number): void {
    if (this.entries.size >= this.options.maxEntries && !this.entries.has(hash)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    // Written out, not spread: every entry shares one hidden class (ADR 0057).
    this.entries.set(hash, {
      keyId: key.keyId,
      accountId: key.accountId,
      lastUsedAt: key.lastUsedAt,
      policy: key.policy,
      generation,
      expiresAtMs: nowMs + this.options.ttlMs,
    });
  }

  noteUsed(hash: string, at: string): void {
    const entry = this.entries.get(hash);
    if (entry) entry.lastUsedAt = at;
  }

  /** Marks the key revoked on the board; this instance forgets it at once. */
  async revoked(keyId: string): Promise<void> {
    for (const [hash, entry] of this.entries) if (entry.keyId === keyId) this.entries.delete(hash);
    await this.board.markRevoked(keyId);
  }
}
