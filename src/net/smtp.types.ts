// Connection options and result values of the SMTP client, shared with its SOCKS5 path (socks.ts)
// without either importing the other.

export type SmtpFailureKind =
  | "connect_refused"
  | "connect_timeout"
  | "connect_error"
  | "proxy_error"
  | "timeout"
  | "closed"
  | "protocol"
  | "tls_error";

export interface SmtpFailure {
  kind: SmtpFailureKind;
  message: string;
}

export type SmtpResult<T> = { ok: true; value: T } | { ok: false; failure: SmtpFailure };

export interface SmtpConnectOptions {
  host: string;
  port: number;
  connectTimeoutMs: number;
  /** "socks5://[user:pass@]host:port": connect through this proxy. */
  socksProxy?: string | undefined;
  /** Replies received before they are read (pipelining) beyond this are a protocol failure. */
  maxQueuedReplies?: number;
  /** A reply line longer than this (bytes, without CRLF) is a protocol failure. */
  maxLineBytes?: number;
  /** A reply with more lines than this is a protocol failure. */
  maxReplyLines?: number;
}
