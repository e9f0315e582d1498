// Whether this host can see the world: its resolvers (DNS_SERVERS) and its SMTP egress (port 25
// or SMTP_SOCKS_PROXY). Checked at start-up and every NETWORK_CHECK_INTERVAL_MS, so a fixed
// firewall or resolver is noticed without a restart.
//
// Invariant: the resolvers are distrusted only when EVERY canary lookup fails (NXDOMAIN, NODATA,
// SERVFAIL or no answer). The canaries (DNS_CANARY_NAMES) are names no working resolver fails
// all at once: the MX of the largest mail domains and the root's NS. While distrusted, nothing a
// resolver said is a fact: checks answer `resolver_unavailable`, never `dns_nxdomain` or invalid.
// A single round that passes restores trust. Before the first round the state is `unknown` and
// nothing is refused or rewritten.
import type { Clock } from "../lib/clock.js";
import type { DnsAnswer, DnsRecordType } from "./dns.js";

export type NetworkState = "ok" | "down" | "unknown";

/** One network path as GET /v1/status and /readiness show it. */
export interface PathStatus {
  state: NetworkState;
  /** When the path entered this state (ISO 8601); null before the first check. */
  since: string | null;
  /** Why it is down (or not checked); null when ok. */
  reason: string | null;
}

export interface NetworkStatus {
  network: { dns: PathStatus; smtp: PathStatus };
  /** End of the last completed round; null before the first. */
  checkedAt: string | null;
}

export interface Canary {
  name: string;
  type: DnsRecordType;
}

/** Default DNS_CANARY_NAMES: MX of very large mail domains, and "." (the root's NS). */
export const DEFAULT_CANARY_NAMES = "gmail.com,outlook.com,yahoo.com,icloud.com,.";

/** "gmail.com,.,example.test:A": a bare name asks its MX, "." the root's NS, "name:TYPE" that type. */
export function parseCanaries(spec: string): Canary[] {
  const types = new Set<string>(["A", "AAAA", "MX", "NS", "CNAME", "TXT"]);
  return spec
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const [rawName, rawType] = item.split(":");
      const name = rawName!.trim();
      if (rawType !== undefined) {
        const type = rawType.trim().toUpperCase();
        if (!types.has(type)) throw new Error(`DNS_CANARY_NAMES: unknown record type in "${item}"`);
        return { name, type: type as DnsRecordType };
      }
      return { name, type: name === "." ? "NS" : "MX" };
    });
}

interface CanaryResolver {
  resolve(name: string, type: DnsRecordType): Promise<DnsAnswer<unknown>>;
}

/** The SMTP egress self-check (SmtpSelfCheck): run once per round. */
export interface EgressCheck {
  run(): Promise<{ egress: "unchecked" | "ok" | "blocked"; egressMessage: string | undefined }>;
}

export interface NetworkHealthDeps {
  /** Asks the configured resolvers without a cache: a canary must reach them every round. */
  resolver: CanaryResolver;
  /** How the resolvers are named in reasons ("127.0.0.1:53" or "the system's resolvers"). */
  resolverLabel: string;
  canaries: Canary[];
  /** Absent: SMTP egress is not watched and stays unknown. */
  smtp?: { check: EgressCheck; needsDns: boolean } | undefined;
  clock: Clock;
  /** Between rounds; 0: only the start-up round. */
  intervalMs: number;
  /** A check's negative DNS answer is believed when a round this recent passed (default 10 s). */
  confirmFreshMs?: number;
  onChange?: (path: "dns" | "smtp", status: PathStatus) => void;
}

const UNKNOWN: PathStatus = { state: "unknown", since: null, reason: null };

export class NetworkHealth {
  private dns: PathStatus = UNKNOWN;
  private smtp: PathStatus = UNKNOWN;
  private checkedAt: string | null = null;
  private dnsCheckedAtMs = Number.NEGATIVE_INFINITY;
  private round: Promise<NetworkStatus> | undefined;
  private dnsRound: Promise<PathStatus> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Set by start(): only a watched network asks the canaries to confirm a negative answer. */
  private isWatching = false;

  constructor(private readonly deps: NetworkHealthDeps) {}

  /** Starts the first round, then one every interval; resolves when the first round ends. */
  start(): Promise<NetworkStatus> {
    this.isWatching = true;
    const first = this.runRound();
    if (!this.timer && this.deps.intervalMs > 0) {
      this.timer = setInterval(() => void this.runRound(), this.deps.intervalMs);
      this.timer.unref();
    }
    return first;
  }

  stop(): void {
    this.isWatching = false;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  status(): NetworkStatus {
    return { network: { dns: { ...this.dns }, smtp: { ...this.smtp } }, checkedAt: this.checkedAt };
  }

  /** The DNS path's status while it is down; undefined otherwise. */
  dnsDown(): PathStatus | undefined {
    return this.dns.state === "down" ? { ...this.dns } : undefined;
  }

  smtpDown(): PathStatus | undefined {
    return this.smtp.state === "down" ? { ...this.smtp } : undefined;
  }

  /** One round: the DNS canaries, then the egress check. Concurrent callers share it. */
  runRound(): Promise<NetworkStatus> {
    this.round ??= this.doRound().finally(() => {
      this.round = undefined;
    });
    return this.round;
  }

  /** Whether the resolvers may be believed now: asks the canaries again unless a round passed
   *  within confirmFreshMs. Called before a negative DNS answer becomes a verdict. Unwatched
   *  (NETWORK_CHECK off, or a process that never started it): always believed, as before. */
  async confirmDns(): Promise<boolean> {
    if (!this.isWatching || this.deps.canaries.length === 0) return true;
    const fresh = this.nowMs() - this.dnsCheckedAtMs <= (this.deps.confirmFreshMs ?? 10_000);
    const dns = fresh ? this.dns : await this.checkDns();
    return dns.state !== "down";
  }

  private async doRound(): Promise<NetworkStatus> {
    const dns = await this.checkDns();
    const smtp = this.deps.smtp;
    if (smtp) {
      if (smtp.needsDns && dns.state === "down")
        this.set("smtp", "unknown", "not tested: the egress check resolves its probe host, and DNS is down");
      else {
        const result = await smtp.check.run().catch((error: unknown) => ({
          egress: "unchecked" as const,
          egressMessage: `the egress check failed: ${error instanceof Error ? error.message : String(error)}`,
        }));
        if (result.egress === "ok") this.set("smtp", "ok", null);
        else if (result.egress === "blocked")
          this.set("smtp", "down", result.egressMessage ?? "port 25 is unreachable");
        else this.set("smtp", "unknown", result.egressMessage ?? null);
      }
    }
    this.checkedAt = this.clock().toISOString();
    return this.status();
  }

  private checkDns(): Promise<PathStatus> {
    this.dnsRound ??= this.askCanaries().finally(() => {
      this.dnsRound = undefined;
    });
    return this.dnsRound;
  }

  private async askCanaries(): Promise<PathStatus> {
    const { canaries, resolver, resolverLabel } = this.deps;
    if (canaries.length === 0) return this.dns;
    const answers = await Promise.all(
      canaries.map((c) =>
        resolver.resolve(c.name, c.type).catch(
          (error: unknown): DnsAnswer<unknown> => ({
            ok: false,
            failure: "ERROR",
            message: error instanceof Error ? error.message : String(error),
          }),
        ),
      ),
    );
    this.dnsCheckedAtMs = this.nowMs();
    const failures = answers.flatMap((a, i) =>
      a.ok && a.records.length > 0
        ? []
        : [`${canaries[i]!.type} ${canaries[i]!.name}: ${a.ok ? "empty" : a.failure}`],
    );
    if (failures.length < canaries.length) this.set("dns", "ok", null);
    else
      this.set(
        "dns",
        "down",
        `${resolverLabel} failed every canary lookup (${failures.join("; ")}): the resolver lies or DNS is blocked`,
      );
    return this.dns;
  }

  private set(path: "dns" | "smtp", state: NetworkState, reason: string | null): void {
    const current = this[path];
    if (current.state === state && current.reason === reason) return;
    const since = current.state === state ? current.since : this.clock().toISOString();
    this[path] = { state, since, reason };
    this.deps.onChange?.(path, { ...this[path] });
  }

  private clock(): Date {
    return this.deps.clock.now();
  }

  private nowMs(): number {
    return this.deps.clock.now().getTime();
  }
}
