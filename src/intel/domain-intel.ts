// The domain-intelligence engine: registration by RDAP, reputation by DNS block lists and the
// mail records (SPF, DMARC, Null MX) of a domain, with its network injected (the shared DNS
// resolver, a guarded HTTP client for RDAP). RDAP answers are cached per registrable domain for
// 24 hours, "not registered" and "unsupported" included (negative caching); failures for 5 minutes.
// Block-list and mail-record answers are cached by the resolver for their DNS TTL. Each call is
// bounded by a budget so a slow registry never holds a check up: facts still missing then are
// unknown (timeout), and the lookup finishes in the background to fill the cache.
import { getDomain } from "tldts";
import type { Clock } from "../lib/clock.js";
import { systemClock } from "../lib/clock.js";
import type { DnsResolver } from "../net/dns.js";
import type { HttpClient } from "../net/http-client.js";
import { type MailRoute, resolveHostAddresses, resolveMailRoute } from "../net/mx.js";
import type { DnsblChecker } from "./dnsbl.js";
import type {
  DmarcRecord,
  DomainAge,
  DomainIntel,
  DomainIntelProvider,
  DomainStanding,
  Reputation,
  SpfRecord,
} from "./intel.types.js";
import { readDmarc, readSpf } from "./mail-auth.js";
import { lookupRegistration } from "./rdap.js";
import type { RdapBootstrap } from "./rdap-bootstrap.js";

export interface DomainIntelOptions {
  dns: Pick<DnsResolver, "resolve" | "resolveAddresses">;
  /** Null turns RDAP off (ages are unknown, reason disabled). */
  rdap: { http: Pick<HttpClient, "request">; bootstrap: RdapBootstrap; timeoutMs: number } | null;
  dnsbl: DnsblChecker;
  clock?: Clock;
  /** Default bound on one call when the caller names none. */
  budgetMs?: number;
  rdapTtlMs?: number;
  rdapFailureTtlMs?: number;
  maxCacheEntries?: number;
  /** MX hosts whose addresses are looked up in the IP lists. */
  maxMxHosts?: number;
  /** How long a complete answer for a domain is reused as a whole (default 30 s, well under DNS
   *  TTLs), so a batch's thousands of leads of one domain cost one map lookup each. */
  memoTtlMs?: number;
}

interface Memo<T> {
  expiresAt: number;
  result: Promise<T>;
}

interface CachedAge {
  expiresAt: number;
  age: Promise<DomainAge>;
}

const DAY_MS = 86_400_000;

export class DomainIntelEngine implements DomainIntelProvider {
  private readonly clock: Clock;
  private readonly ages = new Map<string, CachedAge>();
  private readonly lookups = new Map<string, Memo<DomainIntel>>();
  private readonly standings = new Map<string, Memo<DomainStanding>>();
  private readonly budgetMs: number;
  private readonly rdapTtlMs: number;
  private readonly rdapFailureTtlMs: number;
  private readonly maxCacheEntries: number;
  /** RDAP requests sent (cache misses), for metrics and the batch benchmark. */
  rdapLookups = 0;

  constructor(private readonly options: DomainIntelOptions) {
    this.clock = options.clock ?? systemClock;
    this.budgetMs = options.budgetMs ?? 3000;
    this.rdapTtlMs = options.rdapTtlMs ?? DAY_MS;
    this.rdapFailureTtlMs = options.rdapFailureTtlMs ?? 5 * 60_000;
    this.maxCacheEntries = options.maxCacheEntries ?? 100_000;
  }

  standing(domain: string, options: { budgetMs?: number } = {}): Promise<DomainStanding> {
    const d = normalizeDomain(domain);
    return this.memoized(this.standings, d, () => this.freshStanding(d, options), isComplete);
  }

  lookup(domain: string, options: { budgetMs?: number } = {}): Promise<DomainIntel> {
    const d = normalizeDomain(domain);
    return this.memoized(this.lookups, d, () => this.freshLookup(d, options), isComplete);
  }

  /**
   * Reuses a domain's answer (or the lookup under way) for memoTtlMs. An answer with a fact cut
   * short by the budget is not kept: the next call picks up what the background lookup cached.
   */
  private memoized<T>(
    memo: Map<string, Memo<T>>,
    domain: string,
    run: () => Promise<T>,
    keep: (v: T) => boolean,
  ) {
    const now = this.clock.now().getTime();
    const hit = memo.get(domain);
    if (hit && hit.expiresAt > now) return hit.result;
    const entry: Memo<T> = { expiresAt: now + (this.options.memoTtlMs ?? 30_000), result: run() };
    entry.result.then(
      (value) => {
        if (!keep(value) && memo.get(domain) === entry) memo.delete(domain);
      },
      () => memo.delete(domain),
    );
    if (memo.size >= this.maxCacheEntries) {
      const oldest = memo.keys().next().value;
      if (oldest !== undefined) memo.delete(oldest);
    }
    memo.delete(domain);
    memo.set(domain, entry);
    return entry.result;
  }

  private async freshStanding(d: string, options: { budgetMs?: number }): Promise<DomainStanding> {
    const registrable = registrableOf(d);
    const deadline = this.deadline(options.budgetMs);
    try {
      const [age, reputation] = await Promise.all([
        deadline.bound(this.age(registrable), AGE_TIMEOUT),
        deadline.bound(this.options.dnsbl.check(registrable, []), reputationTimeout(this.options.dnsbl)),
      ]);
      return { domain: d, registrableDomain: registrable, age, reputation };
    } finally {
      deadline.clear();
    }
  }

  private async freshLookup(d: string, options: { budgetMs?: number }): Promise<DomainIntel> {
    const registrable = registrableOf(d);
    const deadline = this.deadline(options.budgetMs);
    const route = resolveMailRoute(this.options.dns, d).catch(
      (): MailRoute => ({ kind: "dns_error", failure: "ERROR", message: "lookup failed" }),
    );
    try {
      const [age, reputation, spf, dmarc, nullMx] = await Promise.all([
        deadline.bound(this.age(registrable), AGE_TIMEOUT),
        deadline.bound(
          route.then((r) => this.reputation(registrable, r)),
          reputationTimeout(this.options.dnsbl),
        ),
        deadline.bound(readSpf(this.options.dns, d), UNKNOWN_SPF),
        deadline.bound(readDmarc(this.options.dns, d, registrable), UNKNOWN_DMARC),
        deadline.bound(
          route.then((r) => (r.kind === "dns_error" ? null : r.kind === "null_mx")),
          null,
        ),
      ]);
      return { domain: d, registrableDomain: registrable, age, reputation, spf, dmarc, nullMx };
    } finally {
      deadline.clear();
    }
  }

  private async reputation(registrable: string | null, route: MailRoute): Promise<Reputation> {
    const hosts = route.kind === "mx" ? route.hosts.slice(0, this.options.maxMxHosts ?? 3) : [];
    const addresses = (
      await Promise.all(hosts.map((h) => resolveHostAddresses(this.options.dns, h.host)))
    ).flatMap((a) => (a.ok ? a.addresses : []));
    return this.options.dnsbl.check(registrable, addresses);
  }

  private age(registrable: string | null): Promise<DomainAge> {
    if (!registrable) return Promise.resolve({ status: "unsupported", reason: "no_registrable_domain" });
    const rdap = this.options.rdap;
    if (!rdap)
      return Promise.resolve({ status: "unknown", reason: "disabled", message: "RDAP is turned off" });
    const now = this.clock.now().getTime();
    const hit = this.ages.get(registrable);
    if (hit && hit.expiresAt > now) return hit.age.then((age) => this.aged(age));
    const entry: CachedAge = { expiresAt: Number.POSITIVE_INFINITY, age: Promise.resolve(AGE_TIMEOUT) };
    if (rdap.bootstrap.serversFor(registrable).length > 0) this.rdapLookups++;
    entry.age = lookupRegistration({ ...rdap, now: () => this.clock.now().getTime() }, registrable)
      .catch(
        (err: unknown): DomainAge => ({ status: "unknown", reason: "network_error", message: String(err) }),
      )
      .then((age) => {
        const ttl = age.status === "unknown" ? this.rdapFailureTtlMs : this.rdapTtlMs;
        entry.expiresAt = this.clock.now().getTime() + ttl;
        return age;
      });
    if (this.ages.size >= this.maxCacheEntries) {
      const oldest = this.ages.keys().next().value;
      if (oldest !== undefined) this.ages.delete(oldest);
    }
    this.ages.delete(registrable);
    this.ages.set(registrable, entry);
    return entry.age;
  }

  /** A cached registration's age in days as of now, not as of the lookup. */
  private aged(age: DomainAge): DomainAge {
    if (age.status !== "registered" || age.registeredAt === null) return age;
    const days = Math.max(
      0,
      Math.floor((this.clock.now().getTime() - Date.parse(age.registeredAt)) / DAY_MS),
    );
    return days === age.ageDays ? age : { ...age, ageDays: days };
  }

  private deadline(budgetMs: number | undefined) {
    const ms = Math.max(0, budgetMs ?? this.budgetMs);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    return {
      bound<T>(work: Promise<T>, fallback: T): Promise<T> {
        return Promise.race([work, expired.then(() => fallback)]);
      },
      clear: () => clearTimeout(timer),
    };
  }
}

/** No fact was cut short by the budget (a timeout inside RDAP itself is an answer, and kept). */
function isComplete(v: DomainStanding | DomainIntel): boolean {
  if (v.age === AGE_TIMEOUT) return false;
  if (v.reputation.answers.length === 0 && v.reputation.status === "unknown") return false;
  if ("spf" in v && (v.spf === UNKNOWN_SPF || v.dmarc === UNKNOWN_DMARC)) return false;
  return true;
}

const AGE_TIMEOUT: DomainAge = {
  status: "unknown",
  reason: "timeout",
  message: "no RDAP answer within the check's budget",
};
const UNKNOWN_SPF: SpfRecord = { status: "unknown", all: null, record: null };
const UNKNOWN_DMARC: DmarcRecord = { status: "unknown", policy: null, foundAt: null, record: null };

function reputationTimeout(dnsbl: DnsblChecker): Reputation {
  return {
    status: dnsbl.enabled ? "unknown" : "off",
    domainListed: null,
    mxListed: null,
    answers: [],
  };
}

function normalizeDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.$/, "");
}

/** The registrable domain by the ICANN section of the public-suffix list: what a registry holds
 *  (user.github.io is registered as github.io). */
function registrableOf(domain: string): string | null {
  return getDomain(domain, { allowPrivateDomains: false }) ?? null;
}
