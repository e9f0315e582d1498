// The one DNS resolver every check uses (MX, A/AAAA, NS, CNAME, TXT). It talks to the servers in
// DNS_SERVERS (or the system's) directly, so tests point it at a local DNS server, and it keeps a
// cache that honours the answers' TTLs (negative answers are cached for a short fixed time).
import { createSocket } from "node:dgram";
import { getServers } from "node:dns";
import { isIP } from "node:net";
import type { Answer, Packet } from "dns-packet";
import DnsSocket from "dns-socket";

export type DnsRecordType = "A" | "AAAA" | "MX" | "NS" | "CNAME" | "TXT" | "PTR";

/** Why a lookup produced no records. NXDOMAIN: the name does not exist; NODATA: it exists without
 *  records of that type; SERVFAIL/TIMEOUT/REFUSED/ERROR: the answer is unknown. */
export type DnsFailure = "NXDOMAIN" | "NODATA" | "SERVFAIL" | "TIMEOUT" | "REFUSED" | "ERROR";

interface MxRecord {
  exchange: string;
  priority: number;
}

export interface DnsRecordsByType {
  A: string;
  AAAA: string;
  MX: MxRecord;
  NS: string;
  CNAME: string;
  TXT: string;
  PTR: string;
}

export type DnsAnswer<T> =
  | { ok: true; records: T[]; ttlSeconds: number }
  | { ok: false; failure: DnsFailure; message: string };

export interface DnsResolverOptions {
  /** "ip" or "ip:port" ("[v6]:port" for IPv6 with a port); empty means the system's resolvers. */
  servers?: string[];
  /** One lookup's whole budget: every try on every server shares it. */
  timeoutMs?: number;
  /** Seconds to cache NXDOMAIN/NODATA answers. */
  negativeTtlSeconds?: number;
  /** Upper bound on any cached TTL, in seconds. */
  maxTtlSeconds?: number;
  /** Entries kept at most; the oldest are dropped first. */
  maxCacheEntries?: number;
  now?: () => number;
}

interface Server {
  host: string;
  port: number;
}

export function parseDnsServer(spec: string): Server {
  const s = spec.trim();
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (v6) return { host: v6[1]!, port: v6[2] ? Number(v6[2]) : 53 };
  if (isIP(s) === 6) return { host: s, port: 53 };
  const m = /^([^:]+)(?::(\d+))?$/.exec(s);
  if (!m || isIP(m[1]!) !== 4) throw new Error(`invalid DNS server "${spec}": expected ip or ip:port`);
  return { host: m[1]!, port: m[2] ? Number(m[2]) : 53 };
}

interface CacheEntry {
  expiresAt: number;
  answer: DnsAnswer<unknown>;
}

const RCODE_FAILURE: Record<string, DnsFailure> = {
  NXDOMAIN: "NXDOMAIN",
  SERVFAIL: "SERVFAIL",
  REFUSED: "REFUSED",
};

export class DnsResolver {
  private readonly servers: Server[];
  private readonly timeoutMs: number;
  private readonly negativeTtlSeconds: number;
  private readonly maxTtlSeconds: number;
  private readonly maxCacheEntries: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<DnsAnswer<unknown>>>();
  private socket: DnsSocket | undefined;

  constructor(options: DnsResolverOptions = {}) {
    const specs = options.servers && options.servers.length > 0 ? options.servers : getServers();
    this.servers = specs.map(parseDnsServer);
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.negativeTtlSeconds = options.negativeTtlSeconds ?? 60;
    this.maxTtlSeconds = options.maxTtlSeconds ?? 3600;
    this.maxCacheEntries = options.maxCacheEntries ?? 50_000;
    this.now = options.now ?? Date.now;
  }

  resolve<T extends DnsRecordType>(name: string, type: T): Promise<DnsAnswer<DnsRecordsByType[T]>> {
    const key = `${type} ${normalizeName(name)}`;
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > this.now())
      return Promise.resolve(cached.answer as DnsAnswer<DnsRecordsByType[T]>);
    const running = this.inflight.get(key);
    if (running) return running as Promise<DnsAnswer<DnsRecordsByType[T]>>;
    const p = this.query(normalizeName(name), type).then((answer) => {
      this.inflight.delete(key);
      this.remember(key, answer);
      return answer;
    });
    this.inflight.set(key, p);
    return p as Promise<DnsAnswer<DnsRecordsByType[T]>>;
  }

  /** A and AAAA together: IPv4 first. Fails only when both fail; NXDOMAIN wins over NODATA. */
  async resolveAddresses(name: string): Promise<DnsAnswer<string>> {
    const [a, aaaa] = await Promise.all([this.resolve(name, "A"), this.resolve(name, "AAAA")]);
    const records = [...(a.ok ? a.records : []), ...(aaaa.ok ? aaaa.records : [])];
    if (records.length > 0) {
      const ttls = [a, aaaa].filter((x) => x.ok).map((x) => (x as { ttlSeconds: number }).ttlSeconds);
      return { ok: true, records, ttlSeconds: Math.min(...ttls) };
    }
    if (!a.ok && a.failure === "NXDOMAIN") return a;
    if (!aaaa.ok && aaaa.failure === "NXDOMAIN") return aaaa;
    if (!a.ok && a.failure !== "NODATA") return a;
    if (!aaaa.ok && aaaa.failure !== "NODATA") return aaaa;
    return { ok: false, failure: "NODATA", message: `${name} has no A or AAAA records` };
  }

  clearCache(): void {
    this.cache.clear();
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private remember(key: string, answer: DnsAnswer<unknown>): void {
    let ttl: number;
    if (answer.ok) ttl = Math.min(answer.ttlSeconds, this.maxTtlSeconds);
    else if (answer.failure === "NXDOMAIN" || answer.failure === "NODATA") ttl = this.negativeTtlSeconds;
    else return; // never cache transient failures
    if (ttl <= 0) return;
    if (this.cache.size >= this.maxCacheEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(key, { expiresAt: this.now() + ttl * 1000, answer });
  }

  private getSocket(): DnsSocket {
    if (!this.socket) {
      // A large receive buffer keeps answers from being dropped when hundreds of checks resolve at once.
      const udp = createSocket({ type: "udp4", recvBufferSize: 4 * 1024 * 1024 });
      // The lookup's budget is split over its sends to each server (a lost UDP packet is sent
      // again after one share). dns-socket sends a question `retries + 2` times, a `timeout`
      // apart, before it gives up.
      const tryMs = Math.max(1, Math.floor(this.timeoutMs / (SENDS_PER_SERVER * this.servers.length)));
      this.socket = new DnsSocket({ timeout: tryMs, retries: SENDS_PER_SERVER - 2, socket: udp });
      // An unref'd socket never keeps the process alive on its own.
      this.socket.unref();
    }
    return this.socket;
  }

  private async query(name: string, type: DnsRecordType): Promise<DnsAnswer<unknown>> {
    let last: DnsAnswer<unknown> = { ok: false, failure: "ERROR", message: "no DNS servers configured" };
    const deadline = Date.now() + this.timeoutMs;
    for (const server of this.servers) {
      const remainingMs = deadline - Date.now();
      if (remainingMs <= 0) break;
      last = await this.queryServer(server, name, type, remainingMs);
      // Authoritative outcomes end the search; a broken or silent server gives way to the next.
      if (last.ok || last.failure === "NXDOMAIN" || last.failure === "NODATA") return last;
    }
    return last;
  }

  /** Asks one server, giving up at `budgetMs` (what is left of the lookup's budget). */
  private queryServer(
    server: Server,
    name: string,
    type: DnsRecordType,
    budgetMs: number,
  ): Promise<DnsAnswer<unknown>> {
    return new Promise((resolve) => {
      const socket = this.getSocket();
      let isOverBudget = false;
      // dns-socket notices a silent server only at its next check (every tenth of a try), and
      // sends its tries whatever is left: the budget ends the question itself. Unref'd like the
      // socket: a lookup under way never keeps the process alive on its own.
      const timer = setTimeout(() => {
        isOverBudget = true;
        socket.cancel(id);
      }, budgetMs).unref();
      const id = socket.query(
        { questions: [{ type, name }], flags: DnsSocket.RECURSION_DESIRED },
        server.port,
        server.host,
        (err: Error | null, response?: Packet) => {
          clearTimeout(timer);
          if (err || !response) {
            const timedOut = isOverBudget || (err !== null && /timed? ?out/i.test(err.message));
            const why = isOverBudget
              ? `no answer within ${this.timeoutMs} ms`
              : (err?.message ?? "no response");
            resolve({
              ok: false,
              failure: timedOut ? "TIMEOUT" : "ERROR",
              message: `${type} ${name}: ${why}`,
            });
            return;
          }
          resolve(interpret(response, name, type));
        },
      );
    });
  }
}

/** Sends of one question to one server before it counts as silent. */
const SENDS_PER_SERVER = 3;

/** The reverse-lookup name of an IPv4 address ("192.0.2.1" -> "1.2.0.192.in-addr.arpa"). */
export function reverseName(ipv4: string): string {
  return `${ipv4.split(".").reverse().join(".")}.in-addr.arpa`;
}

function normalizeName(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

function interpret(response: Packet, name: string, type: DnsRecordType): DnsAnswer<unknown> {
  const rcode = (response as Packet & { rcode?: string }).rcode ?? "NOERROR";
  if (rcode !== "NOERROR") {
    return { ok: false, failure: RCODE_FAILURE[rcode] ?? "ERROR", message: `${type} ${name}: ${rcode}` };
  }
  const answers = (response.answers ?? []).filter((a: Answer) => a.type === type);
  if (answers.length === 0) {
    return { ok: false, failure: "NODATA", message: `${name} has no ${type} records` };
  }
  const ttlSeconds = Math.min(...answers.map((a) => (a as { ttl?: number }).ttl ?? 0));
  return { ok: true, records: answers.map((a) => recordData(a, type)), ttlSeconds };
}

function recordData(answer: Answer, type: DnsRecordType): unknown {
  const data = (answer as { data: unknown }).data;
  switch (type) {
    case "A":
    case "AAAA":
      return String(data);
    case "NS":
    case "CNAME":
    case "PTR":
      return normalizeName(String(data));
    case "MX": {
      const mx = data as { preference: number; exchange: string };
      return { exchange: normalizeName(mx.exchange ?? ""), priority: mx.preference };
    }
    case "TXT": {
      const parts = Array.isArray(data) ? data : [data];
      return parts.map((p) => (Buffer.isBuffer(p) ? p.toString("utf8") : String(p))).join("");
    }
  }
}
