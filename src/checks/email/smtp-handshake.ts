// Opening a probe session: connect to the MX hosts in preference order (moving on only after
// connection-class failures: refused, unreachable, timed out, no banner, 421), greet with EHLO or
// HELO, and upgrade with STARTTLS when offered (retrying in plain text if the handshake fails).

import { type MailHost, type MxDns, resolveHostAddresses } from "../../net/mx.js";
import type { SmtpConnection, SmtpConnector, SmtpFailure, SmtpReply } from "../../net/smtp-client.js";
import { type ClassifiedReply, classifyReply, type SmtpStage } from "./reply-classifier.js";

export interface SessionSettings {
  dns: MxDns;
  port: number;
  heloName: string;
  mailFrom: string;
  /** Opens connections (direct or through a proxy): the engine's injected SMTP connector. */
  connect: SmtpConnector;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** Per-stage overrides of commandTimeoutMs (background jobs: RFC 5321 §4.5.3.2). */
  stageTimeoutsMs?: Partial<Record<"banner" | "mail" | "rcpt", number>> | undefined;
  totalDeadlineMs: number;
  maxRcptsPerSession: number;
  maxRcptsPerTransaction: number;
  /** Postfix slows down and then drops clients after ~10-20 rejected commands: reconnect before. */
  maxRejectsPerSession: number;
  /** Refuses MX addresses (for example private ranges in production); all allowed when absent. */
  isAddressAllowed: ((address: string) => boolean) | undefined;
  now: () => number;
  /** Per-provider rules by MX host (the data file's unless injected): the catch-all probe's rule. */
  providerRuleFor?: ((mxHost: string) => { catchAllProbe: boolean } | undefined) | undefined;
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

export interface HandshakeContext {
  settings: SessionSettings;
  remainingMs(): number;
  /** The timeout for a command of this stage, never past the session's deadline. */
  timeoutMs(stage?: "banner" | "mail" | "rcpt"): number;
}

export interface Session {
  host: string;
  tls: boolean;
  pipelining: boolean;
}

export type Opened =
  | ({ ok: true; conn: SmtpConnection } & Session)
  | { ok: false; outcome: RcptOutcome; connectionClass: boolean; tlsFailed?: boolean };

export function outcome(
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

export async function openSession(ctx: HandshakeContext, hosts: MailHost[]): Promise<Opened> {
  let last: Opened | undefined;
  for (const mx of hosts) {
    const resolved = await resolveHostAddresses(ctx.settings.dns, mx.host);
    const allowed = ctx.settings.isAddressAllowed ?? (() => true);
    const addresses = resolved.ok ? resolved.addresses.filter(allowed) : [];
    if (addresses.length === 0) {
      const message = resolved.ok ? `${mx.host} resolves only to refused addresses` : resolved.message;
      last = {
        ok: false,
        connectionClass: true,
        outcome: outcome(mx.host, "connect", { failure: { kind: "connect_error", message } }),
      };
      continue;
    }
    for (const address of addresses.slice(0, 2)) {
      if (ctx.remainingMs() <= 0) return last ?? deadlineOutcome(mx.host);
      let r = await handshake(ctx, mx.host, address, true);
      if (!r.ok && r.tlsFailed) r = await handshake(ctx, mx.host, address, false);
      if (r.ok || !r.connectionClass) return r;
      last = r;
    }
  }
  return last ?? deadlineOutcome(hosts[0]?.host ?? "");
}

function deadlineOutcome(host: string): Opened {
  const failure = { kind: "timeout" as const, message: "total deadline reached before connecting" };
  return { ok: false, connectionClass: true, outcome: outcome(host, "connect", { failure }) };
}

async function handshake(
  ctx: HandshakeContext,
  host: string,
  address: string,
  allowTls: boolean,
): Promise<Opened> {
  const s = ctx.settings;
  const connected = await s.connect({
    host: address,
    port: s.port,
    connectTimeoutMs: Math.max(1, Math.min(s.connectTimeoutMs, ctx.remainingMs())),
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
  const banner = await conn.readReply(ctx.timeoutMs("banner"));
  if (!banner.ok || banner.value.code !== 220) return fail("banner", banner);
  let ehlo = await greet(ctx, conn);
  if (!ehlo.ok || ehlo.value.code >= 300) return fail("ehlo", ehlo);
  let tls = false;
  if (allowTls && ehlo.value.lines.some((l) => /^250[ -]STARTTLS\b/i.test(l))) {
    const st = await conn.command("STARTTLS", ctx.timeoutMs());
    if (!st.ok) return fail("starttls", st);
    if (st.value.code === 220) {
      const up = await conn.startTls(host, ctx.timeoutMs());
      if (!up.ok)
        return {
          ok: false,
          connectionClass: true,
          tlsFailed: true,
          outcome: outcome(host, "starttls", { failure: up.failure }),
        };
      tls = true;
      ehlo = await conn.command(`EHLO ${s.heloName}`, ctx.timeoutMs());
      if (!ehlo.ok || ehlo.value.code >= 300) return fail("ehlo", ehlo, true);
    }
  }
  const pipelining = ehlo.value.lines.some((l) => /^250[ -]PIPELINING\b/i.test(l));
  return { ok: true, conn, host, tls, pipelining };
}

/** EHLO, and HELO for servers that do not know EHLO. */
async function greet(ctx: HandshakeContext, conn: SmtpConnection) {
  const ehlo = await conn.command(`EHLO ${ctx.settings.heloName}`, ctx.timeoutMs());
  if (!ehlo.ok || ehlo.value.code < 500 || ehlo.value.code > 504) return ehlo;
  return conn.command(`HELO ${ctx.settings.heloName}`, ctx.timeoutMs());
}
