// A minimal SOCKS5 proxy on loopback (no authentication, CONNECT only) for proxy tests. Targets
// must be loopback addresses: the proxy refuses anything else.
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";

export interface TestSocksServer {
  port: number;
  /** "host:port" of every CONNECT request. */
  requests: string[];
  close(): Promise<void>;
}

const REPLY_OK = Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
const REPLY_REFUSED = Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0]);
const REPLY_NOT_ALLOWED = Buffer.from([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]);

export async function startSocksServer(): Promise<TestSocksServer> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => {});
    client.once("data", () => {
      client.write(Buffer.from([5, 0]));
      client.once("data", (req: Buffer) => {
        const target = parseConnect(req);
        if (!target) return void client.end(REPLY_NOT_ALLOWED);
        requests.push(`${target.host}:${target.port}`);
        if (!/^127\./.test(target.host) && target.host !== "::1") return void client.end(REPLY_NOT_ALLOWED);
        const upstream = connect(target.port, target.host);
        sockets.add(upstream);
        upstream.on("close", () => sockets.delete(upstream));
        upstream.once("connect", () => {
          client.write(REPLY_OK);
          client.pipe(upstream);
          upstream.pipe(client);
        });
        upstream.on("error", () => client.end(REPLY_REFUSED));
      });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as { port: number }).port,
    requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseConnect(req: Buffer): { host: string; port: number } | undefined {
  if (req[0] !== 5 || req[1] !== 1) return undefined;
  const atyp = req[3];
  if (atyp === 1) return { host: [...req.subarray(4, 8)].join("."), port: req.readUInt16BE(8) };
  if (atyp === 3) {
    const len = req[4]!;
    return { host: req.subarray(5, 5 + len).toString(), port: req.readUInt16BE(5 + len) };
  }
  return undefined;
}
