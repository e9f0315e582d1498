// Shared plumbing of the loopback API fakes (Google, HubSpot): a JSON server on 127.0.0.1 port 0
// that records every call, a fixed-window request counter per caller (the real APIs' rate
// limits, scaled down in tests) and scripted failures (the next N calls answer a status).
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedCall {
  method: string;
  /** Path and query as sent. */
  url: string;
  status: number;
  /** Who made it (the token's user or portal), when known. */
  caller: string | null;
  at: number;
}

export interface ScriptedFailure {
  status: number;
  /** Only calls whose "METHOD path" matches; all calls when absent. */
  match?: RegExp;
  /** How many more calls it answers. */
  remaining: number;
}

export interface JsonReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export function send(res: ServerResponse, reply: JsonReply): void {
  const headers: Record<string, string> = { ...(reply.headers ?? {}) };
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers).end();
    return;
  }
  headers["content-type"] = "application/json; charset=UTF-8";
  res.writeHead(reply.status, headers).end(JSON.stringify(reply.body));
}

/** A fixed window per caller: `limit` requests per `windowMs`, counted on the fake's own clock. */
export class WindowCounter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    public limit: number,
    public windowMs: number,
  ) {}

  /** Counts the call; returns the ms until the window reopens when over the limit. */
  take(key: string, now: number): { allowed: boolean; remaining: number; retryAfterMs: number } {
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    const retryAfterMs = window.start + this.windowMs - now;
    if (window.count >= this.limit) return { allowed: false, remaining: 0, retryAfterMs };
    window.count++;
    return { allowed: true, remaining: this.limit - window.count, retryAfterMs };
  }

  reset(): void {
    this.windows.clear();
  }
}

export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, { status: 500, body: { error: String(error) } });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Takes one scripted failure matching the call, if any. */
export function takeFailure(failures: ScriptedFailure[], call: string): number | null {
  const failure = failures.find((f) => f.remaining > 0 && (!f.match || f.match.test(call)));
  if (!failure) return null;
  failure.remaining--;
  return failure.status;
}
