// A scripted SMTP server on loopback for probe tests and benchmarks. It listens on one port on
// several 127.0.0.x addresses, each address playing one MX host with its own behaviour (known
// mailboxes, catch-all, greylisting, blocking, drops, slowness, endless lines, silence, stalls).
// It records every connection and command, so tests can count sessions and prove DATA was never
// sent.
import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { TLSSocket } from "node:tls";

type SmtpCommandName = "banner" | "ehlo" | "mail" | "rcpt" | "rset";

export interface MxBehaviour {
  /** Greeting line; null never greets. Default "220 <ip> ESMTP test". */
  banner?: string | null;
  /** Delay of every reply, in ms (the benchmark's server latency). */
  replyDelayMs?: number;
  /** "latency" (default): each reply leaves replyDelayMs after its command arrived, in order, so
   *  pipelined commands overlap like network round trips. "serial": one command at a time, each
   *  reply replyDelayMs after the previous one was sent (a server that is slow to think). */
  delayModel?: "latency" | "serial";
  /** EHLO answered 502: the client must fall back to HELO. */
  noEhlo?: boolean;
  /** Offer STARTTLS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  /** Addresses (lowercase) that exist; with catchAll every address is accepted. */
  mailboxes?: string[];
  catchAll?: boolean;
  /** First RCPT of each address answers 451 greylisting; later ones go through. */
  greylist?: boolean;
  /** Reply for addresses that do not exist. */
  unknownReply?: string;
  /** Per-address override of the RCPT reply; undefined falls through to the rules above. */
  rcpt?: (address: string) => string | undefined;
  mailReply?: string;
  /** Close the connection when this command arrives (banner: right after accepting). */
  dropAt?: SmtpCommandName;
  /** Never answer this command. */
  silentAt?: SmtpCommandName;
  /** Hang at this command: it and every later command are recorded but never answered, and the
   *  connection stays open (a server that stalls mid-conversation, e.g. after PIPELINING). */
  stallAt?: SmtpCommandName;
  /** Answer this command with a line that never ends. */
  endlessLineAt?: SmtpCommandName;
  /** RCPTs per transaction before 452 4.5.3. */
  maxRcptsPerTransaction?: number;
  /** Wait this long before the greeting (Exim's smtp_banner delays, tarpits). */
  bannerDelayMs?: number;
  /** Wait this long before answering the first RCPT of each connection (a slow recipient lookup). */
  firstRcptDelayMs?: number;
}

interface RecordedCommand {
  host: string;
  connection: number;
  line: string;
}

export interface TestSmtpServer {
  port: number;
  /** Connections accepted, per host address. */
  connections: Map<string, number>;
  /** Most connections open at the same time, per host address. */
  peakConcurrent: Map<string, number>;
  commands: RecordedCommand[];
  totalConnections(): number;
  /** True if any client ever sent DATA (or BDAT). */
  sawData(): boolean;
  set(host: string, behaviour: MxBehaviour): void;
  close(): Promise<void>;
}

export async function startSmtpServer(hosts: Record<string, MxBehaviour>, port = 0): Promise<TestSmtpServer> {
  for (let tries = 0; ; tries++) {
    try {
      return await listenAll(hosts, port);
    } catch (err) {
      if (port !== 0 || tries >= 5 || (err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
    }
  }
}

async function listenAll(hosts: Record<string, MxBehaviour>, wantedPort: number): Promise<TestSmtpServer> {
  const behaviours = new Map(Object.entries(hosts));
  const connections = new Map<string, number>();
  const open = new Map<string, number>();
  const peakConcurrent = new Map<string, number>();
  const commands: RecordedCommand[] = [];
  const sockets = new Set<Socket>();
  const servers: Server[] = [];
  let nextConnection = 0;
  let port = wantedPort;
  const greylisted = new Set<string>();
  try {
    for (const ip of behaviours.keys()) {
      const server = createServer((socket) => {
        sockets.add(socket);
        open.set(ip, (open.get(ip) ?? 0) + 1);
        peakConcurrent.set(ip, Math.max(peakConcurrent.get(ip) ?? 0, open.get(ip)!));
        let counted = true;
        // A session is over at QUIT: the socket's close event may come a moment later.
        const release = () => {
          if (counted) open.set(ip, open.get(ip)! - 1);
          counted = false;
        };
        socket.on("close", () => {
          sockets.delete(socket);
          release();
        });
        socket.on("error", () => {});
        connections.set(ip, (connections.get(ip) ?? 0) + 1);
        const ctx = {
          ip,
          id: ++nextConnection,
          commands,
          greylisted,
          release,
          behaviour: () => behaviours.get(ip) ?? {},
        };
        void converse(socket, ctx);
      });
      server.listen(port, ip);
      await Promise.race([once(server, "listening"), once(server, "error").then(([e]) => Promise.reject(e))]);
      servers.push(server);
      port = (server.address() as { port: number }).port;
    }
  } catch (err) {
    for (const s of servers) s.close();
    throw err;
  }
  return {
    port,
    connections,
    peakConcurrent,
    commands,
    totalConnections: () => [...connections.values()].reduce((a, b) => a + b, 0),
    sawData: () => commands.some((c) => /^(DATA|BDAT)\b/i.test(c.line)),
    set: (host, behaviour) => behaviours.set(host, behaviour),
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

interface ConversationContext {
  ip: string;
  id: number;
  commands: RecordedCommand[];
  greylisted: Set<string>;
  release(): void;
  behaviour(): MxBehaviour;
}

async function converse(plain: Socket, ctx: ConversationContext): Promise<void> {
  let socket: Socket | TLSSocket = plain;
  let tls = false;
  let rcpts = 0;
  let inTransaction = false;
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  let buffer = "";
  let closed = false;
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString("latin1");
    let i = buffer.indexOf("\n");
    while (i !== -1) {
      lines.push(buffer.slice(0, i).replace(/\r$/, ""));
      buffer = buffer.slice(i + 1);
      i = buffer.indexOf("\n");
    }
    wake?.();
  };
  plain.on("data", onData);
  plain.on("close", () => {
    closed = true;
    wake?.();
  });
  const nextLine = async (): Promise<string | undefined> => {
    while (lines.length === 0 && !closed) await new Promise<void>((r) => (wake = r));
    wake = undefined;
    return lines.shift();
  };
  const b = ctx.behaviour;
  const outbox: { due: number; text: string; done: () => void }[] = [];
  let flushing = false;
  const flush = () => {
    const now = Date.now();
    while (outbox.length > 0 && outbox[0]!.due <= now) {
      const m = outbox.shift()!;
      if (!closed) socket.write(m.text);
      m.done();
    }
    if (outbox.length > 0) setTimeout(flush, outbox[0]!.due - now);
    else flushing = false;
  };
  // Resolves once the reply is written.
  const send = (reply: string): Promise<void> => {
    const text = `${reply.replace(/\n/g, "\r\n")}\r\n`;
    const delayMs = b().replyDelayMs ?? 0;
    if (delayMs === 0 && outbox.length === 0) {
      if (!closed) socket.write(text);
      return Promise.resolve();
    }
    const due = Math.max(Date.now() + delayMs, outbox.at(-1)?.due ?? 0);
    return new Promise((done) => {
      outbox.push({ due, text, done });
      if (!flushing) {
        flushing = true;
        setTimeout(flush, due - Date.now());
      }
    });
  };
  // Under the latency model the next command is read while this reply is still on its way.
  const reply = async (text: string): Promise<void> => {
    const written = send(text);
    if (b().delayModel === "serial") await written;
  };
  // Returns true when the scripted misbehaviour took over the conversation.
  const misbehave = (at: SmtpCommandName): boolean => {
    if (b().dropAt === at) {
      socket.destroy();
      return true;
    }
    if (b().silentAt === at) return true;
    if (b().endlessLineAt === at) {
      const chunk = `${at === "banner" ? "220" : "250"} ${"x".repeat(1024)}`;
      const pump = () => {
        while (!closed && socket.write(chunk.slice(4))) {}
        if (!closed) socket.once("drain", pump);
      };
      socket.write(chunk);
      pump();
      return true;
    }
    return false;
  };

  if (misbehave("banner")) return;
  if (b().banner === null) return;
  const bannerDelayMs = b().bannerDelayMs ?? 0;
  if (bannerDelayMs > 0) await new Promise((r) => setTimeout(r, bannerDelayMs));
  let rcptsAnswered = 0;
  let isStalled = false;
  await send(b().banner ?? `220 ${ctx.ip} ESMTP test`);
  if (b().banner && !b().banner!.startsWith("220")) {
    socket.end();
    return;
  }
  for (;;) {
    const line = await nextLine();
    if (line === undefined) return;
    ctx.commands.push({ host: ctx.ip, connection: ctx.id, line });
    const verb = line.split(/[ :]/)[0]!.toUpperCase();
    const stage = ({ EHLO: "ehlo", HELO: "ehlo", MAIL: "mail", RCPT: "rcpt", RSET: "rset" } as const)[
      verb as "EHLO"
    ];
    isStalled ||= stage !== undefined && b().stallAt === stage;
    if (isStalled) continue;
    if (stage && misbehave(stage)) {
      if (b().silentAt === stage) continue;
      return;
    }
    switch (verb) {
      case "EHLO": {
        if (b().noEhlo) {
          await reply("502 5.5.2 Error: command not recognized");
          break;
        }
        const ext = ["PIPELINING", "SIZE 10240000", "8BITMIME", ...(b().tls && !tls ? ["STARTTLS"] : [])];
        await reply(
          [`250-${ctx.ip} Hello`, ...ext.map((e, i) => `250${i === ext.length - 1 ? " " : "-"}${e}`)].join(
            "\n",
          ),
        );
        break;
      }
      case "HELO":
        await reply(`250 ${ctx.ip}`);
        break;
      case "STARTTLS": {
        const cert = b().tls;
        if (!cert || tls) {
          await reply("454 4.7.0 TLS not available");
          break;
        }
        await send("220 2.0.0 Ready to start TLS");
        plain.off("data", onData);
        const secure = new TLSSocket(plain, { isServer: true, key: cert.key, cert: cert.cert });
        secure.on("data", onData);
        secure.on("error", () => plain.destroy());
        socket = secure;
        tls = true;
        break;
      }
      case "MAIL":
        inTransaction = true;
        rcpts = 0;
        await reply(b().mailReply ?? "250 2.1.0 Ok");
        break;
      case "RCPT":
        if (!inTransaction) {
          await reply("503 5.5.1 Error: need MAIL command");
          break;
        }
        if (rcptsAnswered++ === 0 && (b().firstRcptDelayMs ?? 0) > 0)
          await new Promise((r) => setTimeout(r, b().firstRcptDelayMs));
        await reply(rcptReply(line, ++rcpts, ctx));
        break;
      case "RSET":
        inTransaction = false;
        await reply("250 2.0.0 Ok");
        break;
      case "NOOP":
        await reply("250 2.0.0 Ok");
        break;
      case "QUIT":
        ctx.release();
        await send("221 2.0.0 Bye");
        socket.end();
        return;
      case "DATA":
      case "BDAT":
        await reply("554 5.5.1 Error: no valid recipients");
        break;
      default:
        await reply("502 5.5.2 Error: command not recognized");
    }
  }
}

function rcptReply(line: string, count: number, ctx: ConversationContext): string {
  const b = ctx.behaviour();
  const address = (/<([^>]*)>/.exec(line)?.[1] ?? "").toLowerCase();
  if (b.maxRcptsPerTransaction !== undefined && count > b.maxRcptsPerTransaction)
    return "452 4.5.3 Error: too many recipients";
  const custom = b.rcpt?.(address);
  if (custom) return custom;
  if (b.greylist && !ctx.greylisted.has(address)) {
    ctx.greylisted.add(address);
    return `451 4.7.1 <${address}>: Recipient address rejected: Greylisted, please retry in 60 seconds`;
  }
  if (b.catchAll || b.mailboxes?.includes(address)) return "250 2.1.5 Ok";
  return (
    b.unknownReply ??
    `550 5.1.1 <${address}>: Recipient address rejected: User unknown in virtual mailbox table`
  );
}
