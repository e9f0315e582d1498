// One SMTP probe session against the MX hosts of a group of domains: connect (next MX only on
// connection-class failures), EHLO/HELO, opportunistic STARTTLS, then transactions of
// MAIL FROM + several RCPT TO + the catch-all probe + RSET, pulling addresses from the group's
// queue until it is empty or a session limit is reached. DATA is never sent.

import type { MailHost } from "../../net/mx.js";
import type { SmtpConnection, SmtpReply } from "../../net/smtp-client.js";
import { providerRuleFor } from "./provider-rules.js";
import { type ClassifiedReply, classifyReply } from "./reply-classifier.js";
import {
  openSession,
  outcome,
  type RcptOutcome,
  type Session,
  type SessionSettings,
} from "./smtp-handshake.js";

export type { RcptOutcome, SessionSettings } from "./smtp-handshake.js";

export interface ProbeTask {
  email: string;
  domain: string;
  /** Sessions that ended before answering for this address. */
  attempts: number;
  /** Background tasks: when the caller's budget ends (epoch ms). */
  deadlineAt?: number;
  /** The first call wins; later ones are ignored. */
  resolve(outcome: RcptOutcome): void;
}

export interface CatchAllStore {
  get(domain: string): boolean | undefined;
  set(domain: string, catchAll: boolean): void;
  /** A mailbox of the domain that should not exist, stable per domain so greylisting lets it pass. */
  probeAddress(domain: string): string;
}

export interface TaskQueue {
  take(max: number): ProbeTask[];
  /** Back to the front of the queue, for another session. */
  requeue(tasks: ProbeTask[]): void;
  takeAll(): ProbeTask[];
}

const MAX_ATTEMPTS = 2;

export class SmtpSession {
  private readonly deadline: number;
  private rcpts = 0;
  private rejects = 0;
  /** Recipients per transaction, lowered when the server says "too many recipients". */
  private rcptLimit: number;

  constructor(
    private readonly settings: SessionSettings,
    private readonly hosts: MailHost[],
    private readonly queue: TaskQueue,
    private readonly catchAll: CatchAllStore,
  ) {
    this.deadline = settings.now() + settings.totalDeadlineMs;
    this.rcptLimit = settings.maxRcptsPerTransaction;
  }

  /** Never rejects: a defect of ours answers the addresses it held instead of leaving them waiting. */
  async run(): Promise<void> {
    let held: ProbeTask[] = [];
    try {
      const opened = await openSession(
        {
          settings: this.settings,
          remainingMs: () => this.remainingMs(),
          timeoutMs: (stage) => this.timeoutMs(stage),
        },
        this.hosts,
      );
      if (!opened.ok) {
        for (const task of this.queue.takeAll()) task.resolve(opened.outcome);
        return;
      }
      const { conn } = opened;
      try {
        while (conn.isOpen && this.remainingMs() > 0 && !this.isSpent()) {
          const room = this.settings.maxRcptsPerSession - this.rcpts;
          held = this.queue.take(Math.min(this.rcptLimit, room));
          if (held.length === 0) break;
          const goOn = await this.transaction(conn, opened, held);
          held = [];
          if (!goOn) break;
        }
      } finally {
        // The connection slot is held until QUIT is answered: servers count open connections.
        await conn.quit(Math.min(1000, this.settings.commandTimeoutMs));
      }
    } catch (err) {
      const failure = { kind: "protocol" as const, message: `internal error: ${String(err)}` };
      for (const task of held) task.resolve(outcome(this.hosts[0]?.host ?? "", "connect", { failure }));
    }
  }

  private isSpent(): boolean {
    return (
      this.rcpts >= this.settings.maxRcptsPerSession || this.rejects >= this.settings.maxRejectsPerSession
    );
  }

  private remainingMs(): number {
    return this.deadline - this.settings.now();
  }

  private timeoutMs(stage?: "banner" | "mail" | "rcpt"): number {
    const stageMs = stage ? this.settings.stageTimeoutsMs?.[stage] : undefined;
    return Math.max(1, Math.min(stageMs ?? this.settings.commandTimeoutMs, this.remainingMs()));
  }

  /** One transaction: MAIL FROM, a RCPT per address, a RCPT for the catch-all probe of each
   *  domain not yet known, RSET. Pipelined when the server offers it. Returns whether the
   *  connection can carry another transaction. */
  private async transaction(conn: SmtpConnection, at: Session, batch: ProbeTask[]): Promise<boolean> {
    // Providers whose data-file rule forbids the random-address probe (gateways that list
    // probing IPs, accept-then-bounce providers where it proves nothing) are never probed.
    const mayProbe = (this.settings.providerRuleFor ?? providerRuleFor)(at.host)?.catchAllProbe ?? true;
    const probeDomains = mayProbe
      ? [...new Set(batch.map((t) => t.domain))].filter((d) => this.catchAll.get(d) === undefined)
      : [];
    const lines = [
      `MAIL FROM:<${this.settings.mailFrom}>`,
      ...batch.map((t) => `RCPT TO:<${t.email}>`),
      ...probeDomains.map((d) => `RCPT TO:<${this.catchAll.probeAddress(d)}>`),
      "RSET",
    ];
    const replies = await this.exchange(conn, at.pipelining, lines);
    const mail = replies[0]!;
    if (!mail.ok || mail.value.code >= 300) {
      const o = mail.ok
        ? outcome(at.host, "mail", {
            reply: mail.value,
            classified: classifyReply("mail", mail.value),
            tls: at.tls,
          })
        : outcome(at.host, "mail", { failure: mail.failure, tls: at.tls });
      this.settle(batch, o, !mail.ok);
      return false;
    }
    const probed = new Map<string, boolean | undefined>();
    probeDomains.forEach((d, i) => {
      probed.set(d, this.interpretProbe(d, replies[1 + batch.length + i]!));
    });
    let goOn = true;
    let failed = false;
    batch.forEach((task, i) => {
      const r = replies[1 + i]!;
      if (!r.ok) {
        // The first address without an answer takes the failure; the others get another session.
        if (failed) this.settle([task], outcome(at.host, "rcpt", { failure: r.failure, tls: at.tls }), true);
        else task.resolve(outcome(at.host, "rcpt", { failure: r.failure, tls: at.tls }));
        failed = true;
        goOn = false;
        return;
      }
      const classified = classifyReply("rcpt", r.value);
      if (classified.outcome === "too_many_recipients" || r.value.code === 421) {
        // Not an answer about this address: it goes to the next transaction or session. Only a
        // refusal without progress counts as an attempt, so a stubborn server cannot loop us.
        // After a 421 the server hangs up: the addresses behind this one get another session.
        if (r.value.code === 421) {
          goOn = false;
          failed = true;
        } else if (i > 0) this.rcptLimit = Math.min(this.rcptLimit, i); // it took the i before
        const o = outcome(at.host, "rcpt", { reply: r.value, classified, tls: at.tls });
        if (r.value.code === 421 || i === 0) this.settle([task], o, true);
        else this.queue.requeue([task]);
        return;
      }
      this.rcpts++;
      if (r.value.code >= 500) this.rejects++;
      task.resolve(this.rcptOutcome(at, task.domain, r.value, classified, probed));
    });
    const rset = replies[replies.length - 1]!;
    return goOn && rset.ok && rset.value.code < 400;
  }

  private async exchange(conn: SmtpConnection, pipelining: boolean, lines: string[]) {
    // Pipelined, every reply may take as long as a RCPT may (MAIL and RCPT share the RFC's 5
    // minutes), and all of them together no longer than the session's deadline.
    if (pipelining) return conn.pipeline(lines, Math.max(1, this.remainingMs()), this.timeoutMs("rcpt"));
    const replies: Awaited<ReturnType<SmtpConnection["command"]>>[] = [];
    for (const line of lines) {
      const stage = /^MAIL /i.test(line) ? "mail" : /^RCPT /i.test(line) ? "rcpt" : undefined;
      const r = await conn.command(line, this.timeoutMs(stage));
      replies.push(r);
      const mailRefused = replies.length === 1 && r.ok && r.value.code >= 300;
      if (!r.ok || mailRefused) {
        const rest = r.ok
          ? { ok: false as const, failure: { kind: "protocol" as const, message: "not sent" } }
          : r;
        while (replies.length < lines.length) replies.push(rest);
        break;
      }
    }
    return replies;
  }

  private rcptOutcome(
    at: Session,
    domain: string,
    reply: SmtpReply,
    classified: ClassifiedReply,
    probed: Map<string, boolean | undefined>,
  ): RcptOutcome {
    const o = outcome(at.host, "rcpt", { reply, classified, tls: at.tls });
    if (classified.outcome === "invalid" || classified.outcome === "disabled") {
      // The server tells mailboxes apart: not a catch-all.
      o.catchAll = false;
    } else if (probed.has(domain)) {
      o.catchAll = probed.get(domain);
      o.catchAllSource = o.catchAll === undefined ? "none" : "probe";
    } else {
      o.catchAll = this.catchAll.get(domain);
      o.catchAllSource = o.catchAll === undefined ? "none" : "cache";
    }
    return o;
  }

  /** Only a definite answer counts: a 4xx or odd reply leaves catch-all unknown, never "true". */
  private interpretProbe(
    domain: string,
    r: Awaited<ReturnType<SmtpConnection["command"]>>,
  ): boolean | undefined {
    if (!r.ok) return undefined;
    this.rcpts++;
    if (r.value.code >= 500) this.rejects++;
    const c = classifyReply("rcpt", r.value);
    let result: boolean | undefined;
    if (c.outcome === "deliverable") result = true;
    else if (c.outcome === "invalid" || c.outcome === "disabled") result = false;
    if (result !== undefined) this.catchAll.set(domain, result);
    return result;
  }

  /** Resolves tasks with a session-level outcome; after a dropped connection they get one more try. */
  private settle(tasks: ProbeTask[], o: RcptOutcome, retryable: boolean): void {
    const again: ProbeTask[] = [];
    for (const t of tasks) {
      t.attempts++;
      if (retryable && t.attempts < MAX_ATTEMPTS) again.push(t);
      else t.resolve(o);
    }
    if (again.length > 0) this.queue.requeue(again);
  }
}
