// Real HTTP and HTTPS servers on 127.0.0.1 (port 0) serving many "sites" routed by Host header.
// The HTTPS server picks a certificate per SNI name, so one server presents valid, expired,
// self-signed, wrong-host and incomplete-chain certificates. Every timer a site starts is tied
// to its socket, so closing the client never leaves work behind on the server.
import { once } from "node:events";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { createSecureContext, type SecureContext } from "node:tls";
import type { KeyPair } from "./test-ca.js";

export interface SiteBehavior {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Redirect target (sets Location; status defaults to 302). */
  location?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Stream this many bytes of filler after `body`. */
  hugeBytes?: number;
  /** Send headers, then one byte every intervalMs until the client goes away (or trickleForMs). */
  trickleIntervalMs?: number;
  /** End a trickling body this long after the headers (default: never). */
  trickleForMs?: number;
  /** Send the headers, then nothing more until the client goes away. */
  stallAfterHeaders?: boolean;
  /** Close the connection without answering. */
  hangUp?: boolean;
}

export type Site = SiteBehavior | ((req: IncomingMessage, count: number) => SiteBehavior);

interface SeenRequest {
  scheme: "http" | "https";
  host: string;
  path: string;
}

export interface TlsSetup {
  /** Certificate for names without their own. */
  fallback: KeyPair;
  /** SNI name -> key and certificate chain PEM. */
  byName?: Record<string, KeyPair>;
}

export interface TestSites {
  httpPort: number;
  httpsPort: number;
  requests: SeenRequest[];
  set(key: string, site: Site): void;
  /** Presents `pair` to clients that ask for `name` by SNI from now on. */
  setCertificate(name: string, pair: KeyPair): void;
  /** TCP connections currently open on either server. */
  openConnections(): number;
  /** TCP connections accepted since start. */
  acceptedConnections(): number;
  /** TLS handshakes that resumed an earlier session instead of verifying afresh. */
  resumedSessions(): number;
  close(): Promise<void>;
}

/**
 * `sites` keys are "host" or "host/path", optionally prefixed "http://" or "https://" for one
 * scheme only; the most specific key wins and unknown hosts get 404.
 */
export async function startSites(sites: Record<string, Site>, tls: TlsSetup): Promise<TestSites> {
  const table = new Map(Object.entries(sites).map(([k, v]) => [k.toLowerCase(), v]));
  const counts = new Map<string, number>();
  const requests: SeenRequest[] = [];
  const open = new Set<Socket>();
  let accepted = 0;
  let resumed = 0;

  const handler = (scheme: "http" | "https") => (req: IncomingMessage, res: ServerResponse) => {
    const host = (req.headers.host ?? "").replace(/:\d+$/, "").toLowerCase();
    const path = (req.url ?? "/").split("?")[0]!;
    requests.push({ scheme, host, path });
    const keys = [`${scheme}://${host}${path}`, `${scheme}://${host}`, `${host}${path}`, host];
    const key = keys.find((k) => table.has(k)) ?? host;
    const site = table.get(key);
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    const behavior =
      typeof site === "function" ? site(req, count) : (site ?? { status: 404, body: "no such site" });
    serve(behavior, req, res);
  };

  const contexts = new Map<string, SecureContext>();
  for (const [name, pair] of Object.entries(tls.byName ?? {}))
    contexts.set(name.toLowerCase(), createSecureContext(pair));
  const fallback = createSecureContext(tls.fallback);

  const http = createHttpServer(handler("http"));
  const https = createHttpsServer(
    {
      ...tls.fallback,
      SNICallback: (name, cb) => cb(null, contexts.get(name.toLowerCase()) ?? fallback),
    },
    handler("https"),
  );
  https.on("secureConnection", (socket) => {
    if (socket.isSessionReused()) resumed++;
  });
  for (const server of [http, https] as Server[]) {
    server.on("connection", (socket: Socket) => {
      accepted++;
      open.add(socket);
      socket.on("close", () => open.delete(socket));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
  }

  return {
    httpPort: (http.address() as AddressInfo).port,
    httpsPort: (https.address() as AddressInfo).port,
    requests,
    set: (key, site) => table.set(key.toLowerCase(), site),
    setCertificate: (name, pair) => contexts.set(name.toLowerCase(), createSecureContext(pair)),
    openConnections: () => open.size,
    acceptedConnections: () => accepted,
    resumedSessions: () => resumed,
    async close() {
      for (const socket of open) socket.destroy();
      await Promise.all([http, https].map((s) => new Promise((resolve) => s.close(resolve))));
    },
  };
}

function serve(b: SiteBehavior, req: IncomingMessage, res: ServerResponse): void {
  const timers = new Set<NodeJS.Timeout>();
  res.on("close", () => {
    for (const t of timers) {
      clearTimeout(t);
      clearInterval(t);
    }
  });
  const answer = () => {
    if (b.hangUp) {
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string> = { "content-type": "text/html; charset=utf-8", ...b.headers };
    if (b.location) headers.location = b.location;
    res.writeHead(b.status ?? (b.location ? 302 : 200), headers);
    if (b.stallAfterHeaders) {
      res.flushHeaders();
      return;
    }
    if (b.trickleIntervalMs !== undefined) {
      if (b.body) res.write(b.body);
      const drip = setInterval(() => res.write("."), b.trickleIntervalMs);
      timers.add(drip);
      if (b.trickleForMs !== undefined)
        timers.add(
          setTimeout(() => {
            clearInterval(drip);
            res.end();
          }, b.trickleForMs),
        );
      return;
    }
    if (b.hugeBytes) {
      if (b.body) res.write(b.body);
      streamFiller(res, b.hugeBytes);
      return;
    }
    res.end(b.body ?? "");
  };
  if (b.delayMs) timers.add(setTimeout(answer, b.delayMs));
  else answer();
}

function streamFiller(res: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, "x");
  let sent = 0;
  const pump = () => {
    while (sent < total && !res.destroyed) {
      const n = Math.min(chunk.length, total - sent);
      sent += n;
      if (!res.write(chunk.subarray(0, n))) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

/** Polls a condition on the event loop (no fixed sleeps); rejects after timeoutMs. */
export async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A loopback port with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createHttpServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
