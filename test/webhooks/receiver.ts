// A webhook receiver on 127.0.0.1 (port 0) that records every request with its raw body and
// answers as scripted per path. "hang" never answers (the socket closes when the client gives
// up or the receiver stops); "hold" answers once release() is called.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received, as UTF-8. */
  body: string;
  json: Record<string, unknown>;
  /** 1-based count of requests to this path so far. */
  count: number;
}

type Answer = { status: number; body?: string } | "hang" | "hold";
type Script = (received: Received) => Answer;

export interface Receiver {
  port: number;
  url(path?: string): string;
  received: Received[];
  on(path: string, script: Script): void;
  /** Answers every held request with 200. */
  release(): void;
  held(): number;
  /** Connections closed by the client while their request was still unanswered. */
  abandoned(): number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const scripts = new Map<string, Script>();
  const counts = new Map<string, number>();
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  let abandoned = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0]!;
      const count = (counts.get(path) ?? 0) + 1;
      counts.set(path, count);
      const body = Buffer.concat(chunks).toString("utf8");
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {}
      const entry = { path, headers: req.headers, body, json, count };
      received.push(entry);
      const answer = (scripts.get(path) ?? (() => ({ status: 200, body: "ok" })))(entry);
      if (answer === "hang" || answer === "hold") {
        res.on("close", () => {
          if (!res.writableEnded) abandoned++;
        });
        if (answer === "hold") held.push(res);
        return;
      }
      res.writeHead(answer.status, { "content-type": "text/plain" });
      res.end(answer.body ?? "");
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  return {
    port,
    url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
    received,
    on: (path, script) => scripts.set(path, script),
    release() {
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end("released");
    },
    held: () => held.filter((r) => !r.destroyed && !r.writableEnded).length,
    abandoned: () => abandoned,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
