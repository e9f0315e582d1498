// SOCKS5 connect for probes that must leave through a proxy (port 25 is blocked on most clouds).
import type { Socket } from "node:net";
import { SocksClient } from "socks";
import type { SmtpConnectOptions, SmtpResult } from "./smtp.types.js";

export interface SocksProxySpec {
  host: string;
  port: number;
  userId: string | undefined;
  password: string | undefined;
}

/** "socks5://[user:pass@]host:port" (also "socks5h://", and a bare "host:port"). */
export function parseSocksProxy(spec: string): SocksProxySpec {
  const url = new URL(spec.includes("://") ? spec : `socks5://${spec}`);
  if (url.protocol !== "socks5:" && url.protocol !== "socks5h:")
    throw new Error(`unsupported proxy "${spec}": expected socks5://host:port`);
  const port = Number(url.port || 1080);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port,
    userId: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
  };
}

export async function connectThroughSocks(
  proxy: SocksProxySpec,
  options: SmtpConnectOptions,
): Promise<SmtpResult<Socket>> {
  try {
    const { socket } = await SocksClient.createConnection({
      proxy: { host: proxy.host, port: proxy.port, type: 5, userId: proxy.userId, password: proxy.password },
      command: "connect",
      destination: { host: options.host, port: options.port },
      timeout: options.connectTimeoutMs,
    });
    return { ok: true, value: socket };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // The proxy reports the target's own refusal; anything else is the proxy's problem.
    if (/ConnectionRefused/i.test(message)) return fail("connect_refused", message);
    if (/HostUnreachable|NetworkUnreachable|TTLExpired/i.test(message)) return fail("connect_error", message);
    if (/timed? ?out/i.test(message)) return fail("connect_timeout", message);
    return fail("proxy_error", message);
  }
}

function fail(
  kind: "connect_refused" | "connect_error" | "connect_timeout" | "proxy_error",
  message: string,
) {
  return { ok: false as const, failure: { kind, message } };
}
