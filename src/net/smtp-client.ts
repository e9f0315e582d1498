// A minimal SMTP client connection for probes: connects directly or through a SOCKS5 proxy, reads
// whole (multi-line) replies with bounded line sizes, and upgrades with STARTTLS. It never sends
// message content: callers issue only envelope commands. Failures come back as values.
import { connect as netConnect, type Socket } from "node:net";
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import type { SmtpConnectOptions, SmtpFailure, SmtpFailureKind, SmtpResult } from "./smtp.types.js";
import { connectThroughSocks, parseSocksProxy } from "./socks.js";

export type { SmtpConnectOptions, SmtpFailure, SmtpFailureKind, SmtpResult } from "./smtp.types.js";

export interface SmtpReply {
  code: number;
  /** RFC 3463 enhanced status code ("5.1.1") when the reply carries one. */
  enhanced: string | undefined;
  lines: string[];
  /** The reply text without codes, lines joined by a space. */
  text: string;
}

/** Opens an SMTP connection. Engines receive one (see `smtpConnector`) instead of dialling
 *  themselves, so the wiring decides how they reach the network (direct, through a proxy). */
export type SmtpConnector = (
  options: Omit<SmtpConnectOptions, "socksProxy">,
) => Promise<SmtpResult<SmtpConnection>>;

/** The production connector: direct TCP, or through `socksProxy` ("socks5://host:port") when set. */
export function smtpConnector(settings: { socksProxy?: string | undefined } = {}): SmtpConnector {
  return (options) => SmtpConnection.connect({ ...options, socksProxy: settings.socksProxy });
}

const REPLY_LINE = /^(\d{3})([ -])(.*)$/;
const ENHANCED = /^([245]\.\d{1,3}\.\d{1,3})(?:\s|$)/;

function failure(kind: SmtpFailureKind, message: string): { ok: false; failure: SmtpFailure } {
  return { ok: false, failure: { kind, message } };
}

export function parseReplyLines(lines: string[]): SmtpReply {
  const texts = lines.map((l) => l.slice(4));
  const code = Number(lines[0]!.slice(0, 3));
  const enhanced = ENHANCED.exec(texts[0] ?? "")?.[1];
  const stripped = enhanced ? texts.map((t) => t.replace(ENHANCED, "").trimStart()) : texts;
  return { code, enhanced, lines, text: stripped.join(" ").trim() };
}

export class SmtpConnection {
  private socket: Socket | TLSSocket;
  private buffer = "";
  private partial: string[] = [];
  private readonly replies: SmtpReply[] = [];
  private waiter: ((r: SmtpResult<SmtpReply>) => void) | undefined;
  private terminal: SmtpFailure | undefined;
  private readonly maxLineBytes: number;
  private readonly maxReplyLines: number;
  private readonly maxQueuedReplies: number;
  private readonly onData = (chunk: Buffer) => this.receive(chunk.toString("latin1"));
  private readonly onClose = () => this.fail("closed", "connection closed by the server");
  private readonly onError = (err: Error) => this.fail("closed", err.message);

  private constructor(socket: Socket, options: SmtpConnectOptions) {
    this.socket = socket;
    this.maxLineBytes = options.maxLineBytes ?? 4096;
    this.maxReplyLines = options.maxReplyLines ?? 200;
    this.maxQueuedReplies = options.maxQueuedReplies ?? 100;
    this.attach(socket);
  }

  static async connect(options: SmtpConnectOptions): Promise<SmtpResult<SmtpConnection>> {
    let proxy: ReturnType<typeof parseSocksProxy> | undefined;
    try {
      proxy = options.socksProxy ? parseSocksProxy(options.socksProxy) : undefined;
    } catch (err) {
      return failure("proxy_error", err instanceof Error ? err.message : String(err));
    }
    const socket = proxy ? await connectThroughSocks(proxy, options) : await connectDirect(options);
    if (!socket.ok) return socket;
    socket.value.setNoDelay(true);
    return { ok: true, value: new SmtpConnection(socket.value, options) };
  }

  get isOpen(): boolean {
    return this.terminal === undefined;
  }

  /** Waits for the next whole reply (the banner, or a reply already requested). */
  readReply(timeoutMs: number): Promise<SmtpResult<SmtpReply>> {
    const queued = this.replies.shift();
    if (queued) return Promise.resolve({ ok: true, value: queued });
    if (this.terminal) return Promise.resolve({ ok: false, failure: this.terminal });
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          this.waiter = undefined;
          // A late reply would desynchronise the conversation: the connection is finished.
          this.fail("timeout", `no reply within ${timeoutMs} ms`);
          resolve(failure("timeout", `no reply within ${timeoutMs} ms`));
        },
        Math.max(1, timeoutMs),
      );
      this.waiter = (r) => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve(r);
      };
    });
  }

  async command(line: string, timeoutMs: number): Promise<SmtpResult<SmtpReply>> {
    if (/[\r\n]/.test(line)) return failure("protocol", "command contains a line break");
    if (this.terminal) return { ok: false, failure: this.terminal };
    this.socket.write(`${line}\r\n`);
    return this.readReply(timeoutMs);
  }

  /** Sends several commands at once (RFC 2920 PIPELINING, when the server offers it) and reads
   *  their replies in order. After a failure the remaining commands share it. `totalMs` bounds
   *  the whole exchange and `replyMs` each reply within it. */
  async pipeline(lines: string[], totalMs: number, replyMs = totalMs): Promise<SmtpResult<SmtpReply>[]> {
    const deadline = Date.now() + totalMs;
    if (lines.some((l) => /[\r\n]/.test(l)))
      return lines.map(() => failure("protocol", "command contains a line break"));
    if (this.terminal) return lines.map(() => ({ ok: false, failure: this.terminal! }));
    this.socket.write(lines.map((l) => `${l}\r\n`).join(""));
    const results: SmtpResult<SmtpReply>[] = [];
    for (let i = 0; i < lines.length; i++) {
      const r = await this.readReply(Math.min(replyMs, deadline - Date.now()));
      results.push(r);
      if (!r.ok) {
        while (results.length < lines.length) results.push(r);
        break;
      }
    }
    return results;
  }

  /** Upgrades the connection after a 220 answer to STARTTLS. Certificates are not verified:
   *  MX certificates are often self-signed, and a probe sends nothing secret. */
  startTls(servername: string, timeoutMs: number): Promise<SmtpResult<void>> {
    if (this.buffer.length > 0 || this.replies.length > 0)
      return Promise.resolve(failure("protocol", "data received before the TLS handshake"));
    const plain = this.socket;
    this.detach(plain);
    return new Promise((resolve) => {
      const tls = tlsConnect({
        socket: plain,
        servername: /^[\d.:]+$/.test(servername) ? undefined : servername,
        rejectUnauthorized: false,
      });
      const timer = setTimeout(
        () => done(failure("tls_error", `TLS handshake over ${timeoutMs} ms`)),
        timeoutMs,
      );
      const done = (r: SmtpResult<void>) => {
        clearTimeout(timer);
        tls.off("secureConnect", onSecure);
        tls.off("error", onError);
        if (r.ok) {
          this.socket = tls;
          this.attach(tls);
        } else {
          tls.destroy();
          plain.destroy();
          this.terminal = r.failure;
        }
        resolve(r);
      };
      const onSecure = () => done({ ok: true, value: undefined });
      const onError = (err: Error) => done(failure("tls_error", err.message));
      tls.once("secureConnect", onSecure);
      tls.once("error", onError);
    });
  }

  /** Says QUIT politely without waiting long for the answer, then closes. */
  async quit(timeoutMs: number): Promise<void> {
    if (this.isOpen) await this.command("QUIT", timeoutMs);
    this.close();
  }

  close(): void {
    if (!this.terminal) this.terminal = { kind: "closed", message: "closed by the client" };
    this.socket.destroy();
  }

  private attach(socket: Socket | TLSSocket): void {
    socket.on("data", this.onData);
    socket.on("close", this.onClose);
    socket.on("error", this.onError);
  }

  private detach(socket: Socket | TLSSocket): void {
    socket.off("data", this.onData);
    socket.off("close", this.onClose);
    socket.off("error", this.onError);
  }

  private receive(text: string): void {
    if (this.terminal) return;
    this.buffer += text;
    let newline = this.buffer.indexOf("\n");
    while (newline !== -1) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, "");
      this.buffer = this.buffer.slice(newline + 1);
      if (line.length > this.maxLineBytes) {
        this.fail("protocol", `reply line over ${this.maxLineBytes} bytes`);
        return;
      }
      if (!this.acceptLine(line)) return;
      newline = this.buffer.indexOf("\n");
    }
    if (this.buffer.length > this.maxLineBytes)
      this.fail("protocol", `reply line over ${this.maxLineBytes} bytes`);
  }

  private acceptLine(line: string): boolean {
    const m = REPLY_LINE.exec(line) ?? (/^\d{3}$/.test(line) ? [line, line, " ", ""] : null);
    if (!m || (this.partial.length > 0 && m[1] !== this.partial[0]!.slice(0, 3))) {
      this.fail("protocol", `malformed reply line "${line.slice(0, 80)}"`);
      return false;
    }
    this.partial.push(m[2] === " " || line.length === 3 ? `${m[1]} ${m[3]}` : line);
    if (this.partial.length > this.maxReplyLines) {
      this.fail("protocol", `reply over ${this.maxReplyLines} lines`);
      return false;
    }
    if (m[2] === "-") return true;
    const reply = parseReplyLines(this.partial);
    this.partial = [];
    if (this.waiter) this.waiter({ ok: true, value: reply });
    else if (this.replies.length >= this.maxQueuedReplies) {
      // Replies nobody asked for (we pipeline at most a transaction's commands): a broken or
      // hostile server; holding them all would grow without bound.
      this.fail("protocol", `more than ${this.maxQueuedReplies} replies nobody asked for`);
      return false;
    } else this.replies.push(reply);
    return true;
  }

  private fail(kind: SmtpFailureKind, message: string): void {
    if (this.terminal) return;
    this.terminal = { kind, message };
    this.socket.destroy();
    this.waiter?.({ ok: false, failure: this.terminal });
  }
}

function connectDirect(options: SmtpConnectOptions): Promise<SmtpResult<Socket>> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: options.host, port: options.port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(
        failure(
          "connect_timeout",
          `connect to ${options.host}:${options.port} over ${options.connectTimeoutMs} ms`,
        ),
      );
    }, options.connectTimeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.removeAllListeners("error");
      resolve({ ok: true, value: socket });
    });
    socket.once("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      const kind = err.code === "ECONNREFUSED" ? "connect_refused" : "connect_error";
      resolve(failure(kind, `${options.host}:${options.port}: ${err.code ?? err.message}`));
    });
  });
}
