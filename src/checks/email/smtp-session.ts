// One SMTP probe session against the MX hosts of a group of domains: connect (next MX only on
// connection-class failures), EHLO/HELO, opportunistic STARTTLS, then transactions of
// MAIL FROM + several RCPT TO + the catch-all probe + RSET, pulling addresses from the group's
// queue until it is empty or a session limit is reached. DATA is never sent.
import {
  SmtpConnection as Connection,
  type SmtpConnection,
  type SmtpFailure,
  type SmtpReply,
} from "../../net/smtp-client.js";
import { type MailHost, type MxDns, resolveHostAddresses } from "./mx.js";
import { type ClassifiedReply, classifyReply, type SmtpStage } from "./reply-classifier.js";

export interface SessionSettings {
  dns: MxDns;
  port: number;
  heloName: string;
  mailFrom: string;
  socksProxy: string | undefined;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  totalDeadlineMs: number;
  maxRcptsPerSession: number;
  maxRcptsPerTransaction: number;
  /** Postfix slows down and then drops clients after ~10-20 rejected commands: reconnect before. */
  maxRejectsPerSession: number;
  now: () => number;
}

export interface RcptOutcome {
  host: string;
  tls: boolean;
  stage: SmtpStage | "connect";
  reply: SmtpReply | undefined;
  classified: ClassifiedReply | undefined;
  failure: SmtpFailure | undefined;
  catchAll: boolean | undefined;
  catchAllSource: "probe" | "cache" | "none";
}

export interface ProbeTask {
  email: string;
  domain: string;
  /** Sessions that ended before answering for this address. */
  attempts: number;
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

interface Session {
  host: string;
  tls: boolean;
  pipelining: boolean;
}

type Opened =
  | ({ ok: true; conn: SmtpConnection } & Session)
  | { ok: false; outcome: RcptOutcome; connectionClass: boolean; tlsFailed?: boolean };

function outcome(
  host: string,
  stage: RcptOutcome["stage"],
  parts: Partial<Pick<RcptOutcome, "reply" | "classified" | "failure" | "tls">>,
): RcptOutcome {
  return {
    host,
    tls: parts.tls ?? false,
    stage,
    reply: parts.reply,
    classified: parts.classified,
    failure: parts.failure,
    catchAll: undefined,
    catchAllSource: "none",
  };
}

export class SmtpSession {
  private readonly deadline: number;
  private rcpts = 0;
  private rejects = 0;

  constructor(
    private readonly settings: SessionSettings,
    private readonly hosts: MailHost[],
    private readonly queue: TaskQueue,
    private readonly catchAll: CatchAllStore,
  ) {
    this.deadline = settings.now() + settings.totalDeadlineMs;
  }

  async run(): Promise<void> {
    const opened = await this.open();
    if (!opened.ok) {
      for (const task of this.queue.takeAll()) task.resolve(opened.outcome);
      return;
    }
    const { conn } = opened;
    try {
      while (conn.isOpen && this.remainingMs() > 0 && !this.isSpent()) {
        const room = this.settings.maxRcptsPerSession - this.rcpts;
        const batch = this.queue.take(Math.min(this.settings.maxRcptsPerTransaction, room));
        if (batch.length === 0) break;
        const goOn = await this.transaction(conn, opened, batch);
        if (!goOn) break;
      }
    } finally {
      // The connection slot is held until QUIT is answered: servers count open connections.
      await conn.quit(Math.min(1000, this.settings.commandTimeoutMs));
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

  private timeoutMs(): number {
    return Math.max(1, Math.min(this.settings.commandTimeoutMs, this.remainingMs()));
  }

  /** One transaction: MAIL FROM, a RCPT per address, a RCPT for the catch-all probe of each
   *  domain not yet known, RSET. Pipelined when the server offers it. Returns whether the
   *  connection can carry another transaction. */
  private async transaction(conn: SmtpConnection, at: Session, batch: ProbeTask[]): Promise<boolean> {
    const probeDomains = [...new Set(batch.map((t) => t.domain))].filter(
      (d) => this.catchAll.get(d) === undefined,
    );
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
        // Not an answer about this address: it goes to the next transaction or session.
        this.queue.requeue([task]);
        if (r.value.code === 421) goOn = false;
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
    if (pipelining) return conn.pipeline(lines, this.timeoutMs());
    const replies: Awaited<ReturnType<SmtpConnection["command"]>>[] = [];
    for (const line of lines) {
      const r = await conn.command(line, this.timeoutMs());
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

  private async open(): Promise<Opened> {
    let last: Opened | undefined;
    for (const mx of this.hosts) {
      const addresses = await resolveHostAddresses(this.settings.dns, mx.host);
      if (!addresses.ok) {
        last = {
          ok: false,
          connectionClass: true,
          outcome: outcome(mx.host, "connect", {
            failure: { kind: "connect_error", message: addresses.message },
          }),
        };
        continue;
      }
      for (const address of addresses.addresses.slice(0, 2)) {
        if (this.remainingMs() <= 0) return last ?? this.deadlineOutcome(mx.host);
        let r = await this.handshake(mx.host, address, true);
        if (!r.ok && r.tlsFailed) r = await this.handshake(mx.host, address, false);
        if (r.ok || !r.connectionClass) return r;
        last = r;
      }
    }
    return last ?? this.deadlineOutcome(this.hosts[0]?.host ?? "");
  }

  private deadlineOutcome(host: string): Opened {
    const failure = { kind: "timeout" as const, message: "total deadline reached before connecting" };
    return { ok: false, connectionClass: true, outcome: outcome(host, "connect", { failure }) };
  }

  private async handshake(host: string, address: string, allowTls: boolean): Promise<Opened> {
    const s = this.settings;
    const connected = await Connection.connect({
      host: address,
      port: s.port,
      connectTimeoutMs: Math.max(1, Math.min(s.connectTimeoutMs, this.remainingMs())),
      socksProxy: s.socksProxy,
    });
    if (!connected.ok)
      return {
        ok: false,
        connectionClass: true,
        outcome: outcome(host, "connect", { failure: connected.failure }),
      };
    const conn = connected.value;
    const fail = (
      stage: SmtpStage,
      r: { ok: true; value: SmtpReply } | { ok: false; failure: SmtpFailure },
      tls = false,
    ): Opened => {
      conn.close();
      if (!r.ok)
        return {
          ok: false,
          connectionClass: stage === "banner",
          outcome: outcome(host, stage, { failure: r.failure, tls }),
        };
      const classified = classifyReply(stage, r.value);
      // 421 "service not available" at the greeting is the RFC 5321 signal to try another MX.
      const connectionClass = r.value.code === 421;
      return {
        ok: false,
        connectionClass,
        outcome: outcome(host, stage, { reply: r.value, classified, tls }),
      };
    };
    const banner = await conn.readReply(this.timeoutMs());
    if (!banner.ok || banner.value.code !== 220) return fail("banner", banner);
    let ehlo = await this.greet(conn);
    if (!ehlo.ok || ehlo.value.code >= 300) return fail("ehlo", ehlo);
    let tls = false;
    if (allowTls && ehlo.value.lines.some((l) => /^250[ -]STARTTLS\b/i.test(l))) {
      const st = await conn.command("STARTTLS", this.timeoutMs());
      if (!st.ok) return fail("starttls", st);
      if (st.value.code === 220) {
        const up = await conn.startTls(host, this.timeoutMs());
        if (!up.ok)
          return {
            ok: false,
            connectionClass: true,
            tlsFailed: true,
            outcome: outcome(host, "starttls", { failure: up.failure }),
          };
        tls = true;
        ehlo = await conn.command(`EHLO ${s.heloName}`, this.timeoutMs());
        if (!ehlo.ok || ehlo.value.code >= 300) return fail("ehlo", ehlo, true);
      }
    }
    const pipelining = ehlo.value.lines.some((l) => /^250[ -]PIPELINING\b/i.test(l));
    return { ok: true, conn, host, tls, pipelining };
  }

  /** EHLO, and HELO for servers that do not know EHLO. */
  private async greet(conn: SmtpConnection) {
    const ehlo = await conn.command(`EHLO ${this.settings.heloName}`, this.timeoutMs());
    if (!ehlo.ok || ehlo.value.code < 500 || ehlo.value.code > 504) return ehlo;
    return conn.command(`HELO ${this.settings.heloName}`, this.timeoutMs());
  }
}
