// One guarded HTTP(S) exchange: resolve the host through the injected resolver, refuse it through
// the SSRF guard, connect to exactly the checked address (SNI and Host carry the name), verify the
// certificate before any request is sent, and read at most a bounded prefix of the body. Redirects
// are never followed here: callers follow them hop by hop so every hop passes the guard again.
// Every network outcome is a value; nothing throws. One connection per exchange, never pooled,
// and no TLS session resumption, so every exchange verifies the certificate and host name.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { connect as netConnect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import {
  checkServerIdentity,
  createSecureContext,
  rootCertificates,
  type SecureContext,
  type TLSSocket,
  connect as tlsConnect,
} from "node:tls";
import { describeCertificate, type TlsInfo } from "./certificate-verdict.js";
import type { DnsFailure, DnsResolver } from "./dns.js";
import { type BlockReason, checkTarget, type TargetVerdict } from "./guard.js";

export type { TlsInfo } from "./certificate-verdict.js";

export type HttpFailure =
  | "dns"
  | "blocked"
  | "refused"
  | "unreachable"
  | "timeout"
  | "tls"
  | "reset"
  | "protocol"
  | "error";

/** Milliseconds spent in each phase; null for phases never reached. */
export interface HttpTimings {
  dnsMs: number | null;
  connectMs: number | null;
  tlsMs: number | null;
  firstByteMs: number | null;
  totalMs: number;
}

export type HttpOutcome =
  | {
      ok: true;
      status: number;
      headers: IncomingHttpHeaders;
      body: Buffer;
      /** Why the body stops short: "size" at maxBodyBytes, "timeout", "aborted" by the peer. */
      bodyTruncated: false | "size" | "timeout" | "aborted";
      address: string;
      tls: TlsInfo | null;
      timings: HttpTimings;
    }
  | {
      ok: false;
      failure: HttpFailure;
      message: string;
      dnsFailure?: DnsFailure;
      blockReason?: BlockReason;
      address?: string;
      tls: TlsInfo | null;
      timings: HttpTimings;
    };

export interface HttpClientOptions {
  dns: Pick<DnsResolver, "resolveAddresses">;
  allowPrivateTargets: boolean;
  /** Exact addresses allowed despite the guard (see GuardOptions). */
  allowAddresses?: readonly string[];
  /** Extra trusted CA certificates (PEM), added to Node's bundled roots. */
  ca?: string | Buffer | (string | Buffer)[];
  /** Ports used when a URL names none (tests point these at local servers). */
  httpPort?: number;
  httpsPort?: number;
  userAgent?: string;
  /** Monotonic milliseconds for timings and deadlines (default performance.now; tests pass the
   *  mocked Date.now so the mocked clock drives both the timers and what they measure). */
  nowMs?: () => number;
}

export interface HttpRequest {
  url: URL;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole exchange budget, DNS included. */
  timeoutMs: number;
  /** Budget for reading the body once headers arrived; bounded by timeoutMs (default: the rest
   *  of timeoutMs, so the exchange is measured to the end of the body). */
  bodyTimeoutMs?: number;
  /** Read at most this many body bytes; 0 skips the body. */
  maxBodyBytes?: number;
  /** Decides from the status whether the body is worth reading (a redirect's is not). */
  wantsBody?: (status: number) => boolean;
  /** Ends the exchange at once when aborted (its caller's job ran out of time): a `timeout`. */
  signal?: AbortSignal;
}

const DEFAULT_USER_AGENT = "leadcheck/0.1 (+website-check)";

export class HttpClient {
  private readonly options: HttpClientOptions;
  private readonly secureContext: SecureContext | undefined;

  constructor(options: HttpClientOptions) {
    this.options = options;
    // Passing `ca` to each connection would re-parse every root per handshake: build it once.
    const extra = options.ca === undefined ? [] : Array.isArray(options.ca) ? options.ca : [options.ca];
    this.secureContext =
      extra.length > 0 ? createSecureContext({ ca: [...rootCertificates, ...extra] }) : undefined;
  }

  portFor(url: URL): number {
    if (url.port) return Number(url.port);
    return url.protocol === "https:" ? (this.options.httpsPort ?? 443) : (this.options.httpPort ?? 80);
  }

  request(req: HttpRequest): Promise<HttpOutcome> {
    return new Exchange(this.options, this.secureContext, this.portFor(req.url), req).run();
  }

  /** The guard's verdict on a host with this client's settings, ahead of any request (a URL
   *  registered now and fetched later); a request checks again at connect time. */
  checkTarget(host: string): Promise<TargetVerdict> {
    return checkTarget(host, this.options);
  }
}

class Exchange {
  private readonly now: () => number;
  private started = 0;
  private readonly timings: HttpTimings = {
    dnsMs: null,
    connectMs: null,
    tlsMs: null,
    firstByteMs: null,
    totalMs: 0,
  };
  private socket: Socket | undefined;
  private address: string | undefined;
  private tls: TlsInfo | null = null;
  private timer: NodeJS.Timeout | undefined;
  private settle: ((outcome: HttpOutcome) => void) | undefined;
  private settled = false;
  private onDeadline: (() => void) | undefined;
  private onAbort: (() => void) | undefined;

  constructor(
    private readonly options: HttpClientOptions,
    private readonly secureContext: SecureContext | undefined,
    private readonly port: number,
    private readonly req: HttpRequest,
  ) {
    this.now = options.nowMs ?? (() => performance.now());
  }

  run(): Promise<HttpOutcome> {
    this.started = this.now();
    return new Promise<HttpOutcome>((resolve) => {
      this.settle = resolve;
      const { signal } = this.req;
      if (signal?.aborted)
        return this.fail("timeout", "not sent: the check was stopped (its job's time ran out)");
      this.timer = setTimeout(() => this.deadline(), this.req.timeoutMs);
      this.onAbort = () => this.fail("timeout", "stopped: the check's job ran out of time");
      signal?.addEventListener("abort", this.onAbort, { once: true });
      this.steps().catch((err: unknown) => this.fail("error", errorMessage(err)));
    });
  }

  private deadline(): void {
    if (this.onDeadline) this.onDeadline();
    else if (this.timings.dnsMs === null) {
      // A name that cannot be resolved in time is a DNS failure (hard), not a slow site (soft).
      this.fail("dns", `DNS lookup of ${this.req.url.hostname} timed out after ${this.req.timeoutMs} ms`, {
        dnsFailure: "TIMEOUT",
      });
    } else this.fail("timeout", `no response within ${this.req.timeoutMs} ms`);
  }

  private finish(outcome: HttpOutcome): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    if (this.onAbort) this.req.signal?.removeEventListener("abort", this.onAbort);
    this.socket?.destroy();
    this.timings.totalMs = round(this.now() - this.started);
    this.settle!(outcome);
  }

  private fail(failure: HttpFailure, message: string, extra: Partial<HttpOutcome> = {}): void {
    this.finish({
      ok: false,
      failure,
      message,
      tls: this.tls,
      timings: this.timings,
      ...(this.address ? { address: this.address } : {}),
      ...extra,
    } as HttpOutcome);
  }

  private async steps(): Promise<void> {
    const { url } = this.req;
    const host = url.hostname;
    const phase = this.now();
    const verdict = await checkTarget(host, this.options);
    if (this.settled) return;
    this.timings.dnsMs = round(this.now() - phase);
    if (!verdict.ok) {
      if (verdict.kind === "blocked") {
        return this.fail("blocked", verdict.message, { blockReason: verdict.reason });
      }
      return this.fail("dns", `DNS lookup of ${host} failed: ${verdict.failure}`, {
        dnsFailure: verdict.failure,
      });
    }
    const socket = await this.connectAny(verdict.addresses);
    if (!socket || this.settled) return;
    let stream: Socket = socket;
    if (url.protocol === "https:") {
      const secure = await this.handshake(socket, verdict.isIpLiteral ? undefined : host);
      if (!secure || this.settled) return;
      stream = secure;
    }
    this.exchange(stream);
  }

  private async connectAny(addresses: string[]): Promise<Socket | undefined> {
    const phase = this.now();
    let last: { failure: HttpFailure; message: string } = { failure: "error", message: "no address" };
    // Two addresses at most: enough to survive one dead address without multiplying the wait.
    for (const address of addresses.slice(0, 2)) {
      this.address = address;
      const result = await this.connectOne(address);
      if (this.settled) return undefined;
      if ("socket" in result) {
        this.timings.connectMs = round(this.now() - phase);
        return result.socket;
      }
      last = result;
    }
    this.fail(last.failure, last.message);
    return undefined;
  }

  private connectOne(
    address: string,
  ): Promise<{ socket: Socket } | { failure: HttpFailure; message: string }> {
    return new Promise((resolve) => {
      const socket = netConnect({ host: address, port: this.port });
      this.socket = socket;
      socket.once("connect", () => {
        socket.removeAllListeners("error");
        socket.on("error", () => {});
        socket.setNoDelay(true);
        resolve({ socket });
      });
      socket.once("error", (err: NodeJS.ErrnoException) => {
        socket.destroy();
        resolve(connectFailure(err, address, this.port));
      });
    });
  }

  private handshake(socket: Socket, servername: string | undefined): Promise<TLSSocket | undefined> {
    const phase = this.now();
    // SNI never carries an IP (RFC 6066 §3), so an IP-literal URL has no servername; Node would
    // then check the certificate against "localhost". The name to verify is the address itself.
    const identity = servername ?? this.address!;
    return new Promise((resolve) => {
      const secure = tlsConnect({
        socket,
        ...(servername ? { servername } : {}),
        checkServerIdentity: (_name, cert) => checkServerIdentity(identity, cert),
        ...(this.secureContext ? { secureContext: this.secureContext } : {}),
        // The verdict is ours to make (we report why a certificate is bad); the request is not
        // sent unless the verdict is good, so this never talks to an unverified peer.
        rejectUnauthorized: false,
        ALPNProtocols: ["http/1.1"],
      });
      this.socket = secure;
      secure.once("secureConnect", () => {
        // From here on a socket error (a reset mid-response) is the exchange's to classify, not a
        // failed handshake: the request and response report it.
        secure.removeListener("error", onHandshakeError);
        secure.on("error", () => {});
        this.timings.tlsMs = round(this.now() - phase);
        this.tls = describeCertificate(secure, identity);
        if (!this.tls.valid) {
          this.fail("tls", `TLS certificate not valid: ${this.tls.problem} (${this.tls.detail})`);
          return resolve(undefined);
        }
        resolve(secure);
      });
      const onHandshakeError = (err: NodeJS.ErrnoException) => {
        this.timings.tlsMs = round(this.now() - phase);
        this.tls = {
          valid: false,
          problem: "handshake_failed",
          detail: err.code ?? err.message,
          issuer: null,
          subject: null,
          validFrom: null,
          validTo: null,
          daysToExpiry: null,
          protocol: null,
        };
        this.fail("tls", `TLS handshake failed: ${err.message}`);
        resolve(undefined);
      };
      secure.once("error", onHandshakeError);
    });
  }

  private exchange(stream: Socket): void {
    const { url } = this.req;
    const phase = this.now();
    const headers: Record<string, string> = {
      host: url.host,
      "user-agent": this.options.userAgent ?? DEFAULT_USER_AGENT,
      accept: "text/html,application/xhtml+xml,*/*;q=0.8",
      connection: "close",
      ...this.req.headers,
    };
    const request = httpRequest({
      createConnection: () => stream,
      method: this.req.method ?? "GET",
      path: url.pathname + url.search,
      headers,
      setHost: false,
    });
    request.on("error", (err: NodeJS.ErrnoException) => {
      const parse = err.code?.startsWith("HPE_");
      this.fail(
        parse ? "protocol" : "reset",
        `${parse ? "invalid HTTP response" : "connection lost"}: ${err.message}`,
      );
    });
    request.on("response", (res) => {
      this.timings.firstByteMs = round(this.now() - phase);
      this.readBody(res);
    });
    request.end(this.req.body);
  }

  private readBody(res: IncomingMessage): void {
    const wanted = this.req.wantsBody?.(res.statusCode ?? 0) ?? true;
    const limit = wanted ? (this.req.maxBodyBytes ?? 0) : 0;
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (truncated: false | "size" | "timeout" | "aborted") => {
      const body = Buffer.concat(chunks, size);
      this.finish({
        ok: true,
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: body.subarray(0, limit),
        bodyTruncated: truncated,
        address: this.address!,
        tls: this.tls,
        timings: this.timings,
      });
    };
    if (limit === 0) {
      done(false);
      return;
    }
    this.onDeadline = () => done("timeout");
    if (this.req.bodyTimeoutMs !== undefined) {
      clearTimeout(this.timer);
      const elapsed = this.now() - this.started;
      const left = Math.max(0, Math.min(this.req.bodyTimeoutMs, this.req.timeoutMs - elapsed));
      this.timer = setTimeout(() => this.deadline(), left);
    }
    res.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) done("size");
    });
    res.on("end", () => done(false));
    res.on("aborted", () => done("aborted"));
    res.on("error", () => done("aborted"));
  }
}

function connectFailure(
  err: NodeJS.ErrnoException,
  address: string,
  port: number,
): { failure: HttpFailure; message: string } {
  const where = `${address.includes(":") ? `[${address}]` : address}:${port}`;
  switch (err.code) {
    case "ECONNREFUSED":
      return { failure: "refused", message: `connection refused by ${where}` };
    case "ENETUNREACH":
    case "EHOSTUNREACH":
    case "EADDRNOTAVAIL":
    case "ENETDOWN":
    case "EHOSTDOWN":
      return { failure: "unreachable", message: `network unreachable for ${where} (${err.code})` };
    case "ECONNRESET":
      return { failure: "reset", message: `connection reset by ${where}` };
    default:
      return { failure: "error", message: `cannot connect to ${where}: ${err.message}` };
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
