// The email verification engine: syntax, MX lookup, SMTP probe (no mail is sent), catch-all
// detection, lists and scoring. Addresses are queued per MX group (domains with the same MX hosts)
// so one SMTP session answers for many of them, with a connection limit per MX host; concurrent
// calls for the same address or domain share their work. Network failures are verdict reasons.

import type { DomainIntel, DomainIntelProvider } from "../../intel/intel.types.js";
import { suggestDomain } from "../../intel/typo.js";
import type { Clock } from "../../lib/clock.js";
import { systemClock } from "../../lib/clock.js";
import { type MailHost, type MailRoute, type MxDns, resolveMailRoute } from "../../net/mx.js";
import type { SmtpConnector } from "../../net/smtp-client.js";
import type { EmailVerdict, EmailVerificationProvider, VerifyOptions } from "./email.types.js";
import { type ProviderRuleLookup, providerRuleFor, withProviderTimeouts } from "./provider-rules.js";
import {
  type CatchAllStore,
  type ProbeTask,
  type RcptOutcome,
  type SessionSettings,
  SmtpSession,
} from "./smtp-session.js";
import { type ParsedEmail, parseEmail } from "./syntax.js";
import {
  budgetVerdict,
  egressVerdict,
  errorVerdict,
  queueFullVerdict,
  routeVerdict,
  smtpVerdict,
  syntaxVerdict,
} from "./verdict.js";

/** RFC 5321 §4.5.3.2: a client should wait 5 minutes for the greeting and for the replies to MAIL
 *  and RCPT. Background verifications use these, bounded by their job's budget. */
const RFC5321_TIMEOUTS_MS = { banner: 300_000, mail: 300_000, rcpt: 300_000 } as const;

type Mode = "interactive" | "background";

export interface EmailEngineOptions {
  /** Told of every answered verify call's verdict (metrics); the engine's answer is unchanged. */
  onVerified?: (status: EmailVerdict["status"]) => void;
  /** Addresses waiting for one mail server's sessions at most (default 20,000); more are answered
   *  at once, unknown with a retry hint (`probe_queue_full`), instead of growing the queue
   *  without bound. */
  maxQueuedPerMx?: number;
  dns: MxDns;
  smtpPort: number;
  heloName: string;
  mailFrom: string;
  /** How SMTP connections are opened (`smtpConnector(...)` in production, with its proxy). */
  connectSmtp: SmtpConnector;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** Bound on one SMTP session (connect to the last reply). */
  totalDeadlineMs: number;
  maxConnectionsPerMx: number;
  /** Uniform in [0, 1), like Math.random; drives the catch-all probe address. */
  random?: () => number;
  clock?: Clock;
  /** How long a domain's catch-all answer is reused. */
  catchAllTtlMs?: number;
  maxRcptsPerSession?: number;
  maxRcptsPerTransaction?: number;
  maxRejectsPerSession?: number;
  /** Queued addresses per session before another connection to the same MX is opened. */
  addressesPerSession?: number;
  /** MX addresses the probe may connect to (e.g. the SSRF guard's public-address test). */
  isAddressAllowed?: (address: string) => boolean;
  /** Positive-only second signal for accept-all Microsoft 365 tenants (off unless configured). */
  m365PersonalSite?: { confirms(email: string): Promise<boolean> } | undefined;
  /** The egress self-check's latest finding: true when port 25 (or the SOCKS proxy) is unreachable. */
  isEgressBlocked?: () => boolean;
  /** Domain intelligence, looked up alongside the probe; omitted: none. */
  intel?: DomainIntelProvider;
  /** Longest the verdict waits for domain facts, counted from the check's start (default 3 s). */
  intelBudgetMs?: number;
  /** Per-provider rules by MX host; default: data/provider-rules.json. Tests name their own. */
  providerRuleFor?: ProviderRuleLookup;
}

type Parsed = Extract<ParsedEmail, { ok: true }>;
type HostRoute = Extract<MailRoute, { kind: "mx" | "implicit" }>;

interface MxGroup {
  key: string;
  mode: Mode;
  hosts: MailHost[];
  queue: ProbeTask[];
  active: number;
}

const MAX_CACHE_ENTRIES = 100_000;

export class EmailEngine implements EmailVerificationProvider {
  private readonly settings: SessionSettings;
  private readonly random: () => number;
  private readonly clock: Clock;
  private readonly catchAllTtlMs: number;
  private readonly maxConnectionsPerMx: number;
  private readonly addressesPerSession: number;
  private readonly maxQueuedPerMx: number;
  private readonly isEgressBlocked: () => boolean;
  private readonly m365PersonalSite: EmailEngineOptions["m365PersonalSite"];
  private readonly onVerified: EmailEngineOptions["onVerified"];
  private readonly inflight = new Map<string, Promise<EmailVerdict>>();
  private readonly routes = new Map<string, Promise<MailRoute>>();
  private readonly groups = new Map<string, MxGroup>();
  private readonly hostConnections = new Map<string, number>();
  private readonly catchAllCache = new Map<string, { catchAll: boolean; expiresAt: number }>();
  private readonly probeLocals = new Map<string, string>();
  private pumpScheduled = false;
  private readonly intel: DomainIntelProvider | undefined;
  private readonly intelBudgetMs: number;
  private readonly ruleFor: ProviderRuleLookup;

  constructor(options: EmailEngineOptions) {
    this.intel = options.intel;
    this.intelBudgetMs = options.intelBudgetMs ?? 3000;
    this.ruleFor = options.providerRuleFor ?? providerRuleFor;
    this.random = options.random ?? Math.random;
    this.clock = options.clock ?? systemClock;
    this.catchAllTtlMs = options.catchAllTtlMs ?? 6 * 3600_000;
    this.maxConnectionsPerMx = Math.max(1, options.maxConnectionsPerMx);
    this.addressesPerSession = options.addressesPerSession ?? 10;
    this.maxQueuedPerMx = options.maxQueuedPerMx ?? 20_000;
    this.isEgressBlocked = options.isEgressBlocked ?? (() => false);
    this.m365PersonalSite = options.m365PersonalSite;
    this.onVerified = options.onVerified;
    this.settings = {
      dns: options.dns,
      port: options.smtpPort,
      heloName: options.heloName,
      mailFrom: options.mailFrom,
      connect: options.connectSmtp,
      connectTimeoutMs: options.connectTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs,
      totalDeadlineMs: options.totalDeadlineMs,
      maxRcptsPerSession: options.maxRcptsPerSession ?? 50,
      maxRcptsPerTransaction: options.maxRcptsPerTransaction ?? 20,
      maxRejectsPerSession: options.maxRejectsPerSession ?? 8,
      isAddressAllowed: options.isAddressAllowed,
      now: () => this.clock.now().getTime(),
      providerRuleFor: this.ruleFor,
    };
  }

  verify(email: string, options: VerifyOptions = {}): Promise<EmailVerdict> {
    const verdict = this.verifyOnce(email, options);
    const onVerified = this.onVerified;
    if (!onVerified) return verdict;
    return verdict.then((answer) => {
      onVerified(answer.status);
      return answer;
    });
  }

  private verifyOnce(email: string, options: VerifyOptions): Promise<EmailVerdict> {
    const parsed = parseEmail(email);
    if (!parsed.ok) return Promise.resolve(syntaxVerdict(String(email ?? ""), parsed));
    const budgetMs = options.background ? Math.max(1, options.background.budgetMs) : undefined;
    const mode: Mode = budgetMs === undefined ? "interactive" : "background";
    const key = `${mode}:${parsed.email.toLowerCase()}`;
    let p = this.inflight.get(key);
    if (p) p = p.then((v) => ({ ...v, email: parsed.email }));
    else {
      const deadlineAt = budgetMs === undefined ? undefined : this.settings.now() + budgetMs;
      p = this.check(parsed, mode, deadlineAt)
        .catch((err: unknown) => errorVerdict(parsed, err))
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    if (budgetMs === undefined) return p;
    // The caller's budget holds even if a shared session outlives it.
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<EmailVerdict>((resolve) => {
      timer = setTimeout(() => resolve(budgetVerdict(parsed, budgetMs)), budgetMs);
    });
    return Promise.race([p, expired]).finally(() => clearTimeout(timer));
  }

  verifyMany(emails: readonly string[], options: VerifyOptions = {}): Promise<EmailVerdict[]> {
    return Promise.all(emails.map((e) => this.verify(e, options)));
  }

  /** Waits for verifications under way; caches are dropped. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.inflight.values()]);
    this.catchAllCache.clear();
    this.probeLocals.clear();
  }

  private async check(parsed: Parsed, mode: Mode, deadlineAt: number | undefined): Promise<EmailVerdict> {
    // Started first and bounded by its own budget, so it runs alongside the probe and never
    // holds the verdict past that budget.
    const intel = this.intel
      ? this.intel.lookup(parsed.domain, { budgetMs: this.intelBudgetMs }).catch(() => null)
      : Promise.resolve(null);
    const route = await this.route(parsed.domain);
    const verdict = await this.mailboxVerdict(parsed, route, mode, deadlineAt);
    return withDomainFacts(verdict, parsed, route, this.intel ? await intel : undefined);
  }

  private async mailboxVerdict(
    parsed: Parsed,
    route: MailRoute,
    mode: Mode,
    deadlineAt: number | undefined,
  ): Promise<EmailVerdict> {
    if (route.kind !== "mx" && route.kind !== "implicit") return routeVerdict(parsed, route);
    // DNS answers stand on their own; anything that needs port 25 is unknown while it is blocked.
    if (this.isEgressBlocked())
      return egressVerdict(
        parsed,
        "this host cannot reach port 25 (or its SOCKS proxy): no mail server was asked",
      );
    const group = this.groupOf(route, mode);
    if (group.queue.length >= this.maxQueuedPerMx) {
      const message = `not probed: ${group.queue.length} addresses already wait for mail server ${group.hosts[0]!.host}`;
      return queueFullVerdict(parsed, route, message);
    }
    const outcome = await this.probe(group, parsed, deadlineAt);
    const verdict = smtpVerdict(parsed, route, outcome, undefined, this.ruleFor);
    if (verdict.reason === "tenant_accept_all" && (await this.m365PersonalSite?.confirms(parsed.email)))
      return smtpVerdict(parsed, route, outcome, { confirmedBy: "m365_personal_site" }, this.ruleFor);
    return verdict;
  }

  private route(domain: string): Promise<MailRoute> {
    const running = this.routes.get(domain);
    if (running) return running;
    const p = resolveMailRoute(this.settings.dns, domain).finally(() => this.routes.delete(domain));
    this.routes.set(domain, p);
    return p;
  }

  /** The queue of the route's MX hosts. Background and interactive addresses never share a
   *  session: their timeouts differ. */
  private groupOf(route: HostRoute, mode: Mode): MxGroup {
    const key = `${mode}|${route.hosts.map((h) => h.host).join(",")}`;
    let group = this.groups.get(key);
    if (!group) {
      group = { key, mode, hosts: route.hosts, queue: [], active: 0 };
      this.groups.set(key, group);
    }
    return group;
  }

  private probe(g: MxGroup, parsed: Parsed, deadlineAt: number | undefined): Promise<RcptOutcome> {
    return new Promise((resolve) => {
      let settled = false;
      const once = (o: RcptOutcome) => {
        if (settled) return;
        settled = true;
        resolve(o);
      };
      g.queue.push({
        email: parsed.email,
        domain: parsed.domain,
        attempts: 0,
        resolve: once,
        ...(deadlineAt === undefined ? {} : { deadlineAt }),
      });
      this.schedulePump();
    });
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    // Let the calls of the same tick queue up first, so they share sessions.
    setImmediate(() => {
      this.pumpScheduled = false;
      for (const group of this.groups.values()) this.pumpGroup(group);
    });
  }

  private pumpGroup(group: MxGroup): void {
    const primary = group.hosts[0]!.host;
    // The provider's own limit (data/provider-rules.json) caps the configured one.
    const limit = Math.min(this.maxConnectionsPerMx, this.ruleFor(primary)?.maxConnections ?? Infinity);
    while (group.queue.length > group.active * this.addressesPerSession) {
      const open = this.hostConnections.get(primary) ?? 0;
      if (open >= limit) break;
      this.hostConnections.set(primary, open + 1);
      group.active++;
      const session = new SmtpSession(
        this.sessionSettings(group),
        group.hosts,
        this.queueOf(group),
        this.catchAllStore,
      );
      void session.run().finally(() => {
        group.active--;
        const left = (this.hostConnections.get(primary) ?? 1) - 1;
        if (left <= 0) this.hostConnections.delete(primary);
        else this.hostConnections.set(primary, left);
        if (group.active === 0 && group.queue.length === 0) this.groups.delete(group.key);
        this.schedulePump();
      });
    }
  }

  /** Background sessions wait RFC 5321's times and may last until the latest queued deadline. The
   *  primary MX's provider rule then adjusts the waits (greeting floor, command cap); every wait
   *  stays bounded by the session's total deadline. */
  private sessionSettings(group: MxGroup): SessionSettings {
    const rule = this.ruleFor(group.hosts[0]!.host);
    if (group.mode === "interactive") return withProviderTimeouts(this.settings, rule);
    const now = this.settings.now();
    const deadlineAt = Math.max(
      ...group.queue.map((t) => t.deadlineAt ?? now + this.settings.totalDeadlineMs),
    );
    const background: SessionSettings = {
      ...this.settings,
      stageTimeoutsMs: RFC5321_TIMEOUTS_MS,
      totalDeadlineMs: Math.max(1, deadlineAt - now),
    };
    return withProviderTimeouts(background, rule);
  }

  private queueOf(group: MxGroup) {
    return {
      take: (max: number) => group.queue.splice(0, Math.max(0, max)),
      requeue: (tasks: ProbeTask[]) => {
        group.queue.unshift(...tasks);
      },
      takeAll: () => group.queue.splice(0),
    };
  }

  private readonly catchAllStore: CatchAllStore = {
    get: (domain) => {
      const hit = this.catchAllCache.get(domain);
      if (!hit) return undefined;
      if (hit.expiresAt <= this.settings.now()) {
        this.catchAllCache.delete(domain);
        return undefined;
      }
      return hit.catchAll;
    },
    set: (domain, catchAll) => {
      bound(this.catchAllCache);
      this.catchAllCache.set(domain, { catchAll, expiresAt: this.settings.now() + this.catchAllTtlMs });
    },
    probeAddress: (domain) => {
      let local = this.probeLocals.get(domain);
      if (!local) {
        local = randomLocal(this.random);
        bound(this.probeLocals);
        this.probeLocals.set(domain, local);
      }
      return `${local}@${domain}`;
    },
  };
}

/** Adds the typo suggestion, the mail configuration and the domain's intelligence to a verdict. */
function withDomainFacts(
  verdict: EmailVerdict,
  parsed: Parsed,
  route: MailRoute,
  intel: DomainIntel | null | undefined,
): EmailVerdict {
  const hasMailRoute = route.kind === "mx" || route.kind === "implicit";
  // A DNS failure says nothing about the domain: no suggestion on a guess.
  const suggestion = route.kind === "dns_error" ? null : suggestDomain(parsed.domain, hasMailRoute);
  const smtp = verdict.details.smtp;
  return {
    ...verdict,
    didYouMean: suggestion ? `${parsed.local}@${suggestion}` : null,
    details: {
      ...verdict.details,
      mailConfig: {
        mx: verdict.details.mx,
        provider: verdict.service,
        nullMx: route.kind === "dns_error" ? null : route.kind === "null_mx",
        spf: intel?.spf ?? { status: "unknown", all: null, record: null },
        dmarc: intel?.dmarc ?? { status: "unknown", policy: null, foundAt: null, record: null },
        // Past EHLO the session knows whether STARTTLS was offered and taken.
        starttls: smtp && (smtp.stage === "mail" || smtp.stage === "rcpt") ? smtp.tls : null,
      },
      ...(intel === undefined ? {} : { domainIntel: intel }),
    },
  };
}

function bound(map: Map<string, unknown>): void {
  if (map.size < MAX_CACHE_ENTRIES) return;
  const oldest = map.keys().next().value;
  if (oldest !== undefined) map.delete(oldest);
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A local part no real mailbox has: 20 random characters, starting with a letter. */
function randomLocal(random: () => number): string {
  let s = ALPHABET[Math.floor(random() * 26)]!;
  for (let i = 0; i < 19; i++) s += ALPHABET[Math.floor(random() * ALPHABET.length)]!;
  return s;
}
