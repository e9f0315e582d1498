import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { after, describe, it } from "node:test";
import { EmailEngine } from "../../../src/checks/email/email-engine.js";
import { DnsResolver } from "../../../src/net/dns.js";
import { SmtpConnection, smtpConnector } from "../../../src/net/smtp-client.js";
import { startDnsServer } from "../../support/dns-server.js";
import { ioTurns, mockClock, untilIo } from "../../support/mock-clock.js";
import { startSmtpServer } from "../../support/smtp-server.js";
import { startSocksServer } from "./socks5-server.js";

const servers: Server[] = [];
after(async () => {
  for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
});

/** A raw server that runs `script` for each connection. What the script does not read is read
 *  and dropped, so the server sees the client's end and closes its side. */
async function rawServer(script: (socket: Socket) => void): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    script(socket);
    socket.resume();
  });
  server.on("close", () => {
    for (const s of sockets) s.destroy();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  return (server.address() as { port: number }).port;
}

async function open(port: number, socksProxy?: string) {
  const r = await SmtpConnection.connect({ host: "127.0.0.1", port, connectTimeoutMs: 500, socksProxy });
  assert.ok(r.ok, JSON.stringify(!r.ok && r.failure));
  return r.value;
}

describe("SmtpConnection", () => {
  it("reads a multi-line reply split across packets as one reply", async () => {
    const port = await rawServer((s) => {
      s.write("220-mx.example ESMTP\r\n22");
      setTimeout(() => s.write("0-second line\r\n220 last\r\n"), 20);
    });
    const conn = await open(port);
    const r = await conn.readReply(1000);
    assert.ok(r.ok);
    assert.equal(r.value.code, 220);
    assert.equal(r.value.lines.length, 3);
    assert.equal(r.value.text, "mx.example ESMTP second line last");
    conn.close();
  });

  it("parses the enhanced status code and strips it from the text", async () => {
    const port = await rawServer((s) => {
      s.write("220 ready\r\n");
      s.on("data", () =>
        s.write(
          "550-5.1.1 The email account that you tried to reach does not exist.\r\n550 5.1.1 Learn more\r\n",
        ),
      );
    });
    const conn = await open(port);
    await conn.readReply(1000);
    const r = await conn.command("RCPT TO:<x@example.com>", 1000);
    assert.ok(r.ok);
    assert.equal(r.value.enhanced, "5.1.1");
    assert.equal(r.value.text, "The email account that you tried to reach does not exist. Learn more");
    conn.close();
  });

  it("fails with a protocol error, not a hang, on an endless reply line", async () => {
    const port = await rawServer((s) => {
      s.write("220 ");
      const chunk = "x".repeat(1024);
      const timer = setInterval(() => s.write(chunk), 1);
      s.on("close", () => clearInterval(timer));
    });
    const conn = await open(port);
    const r = await conn.readReply(5000);
    assert.equal(!r.ok && r.failure.kind, "protocol");
    assert.equal(conn.isOpen, false);
  });

  it("fails with a protocol error on a line that is not an SMTP reply", async () => {
    const port = await rawServer((s) => s.write("HTTP/1.1 400 Bad Request\r\n"));
    const conn = await open(port);
    const r = await conn.readReply(1000);
    assert.equal(!r.ok && r.failure.kind, "protocol");
  });

  it("times out a server that never answers, per command", async () => {
    const port = await rawServer(() => {});
    const conn = await open(port);
    const r = await conn.readReply(100);
    assert.equal(!r.ok && r.failure.kind, "timeout");
    assert.equal(conn.isOpen, false);
  });

  it("ends a pipelined exchange at its total deadline, though each reply may take a minute", async (t) => {
    // Greets, then stalls: the pipelined commands are read and never answered.
    const port = await rawServer((s) => s.write("220 ready\r\n"));
    const conn = await open(port);
    assert.ok((await conn.readReply(1000)).ok);
    const clock = mockClock(t);
    let isDone = false;
    const replies = conn
      .pipeline(["MAIL FROM:<probe@verifier.test>", "RCPT TO:<a@stall.test>", "RSET"], 300, 60_000)
      .finally(() => {
        isDone = true;
      });
    clock.tick(299);
    await ioTurns(20);
    assert.equal(isDone, false, "still waiting 1 ms before the deadline");
    clock.tick(1);
    await untilIo(() => isDone, "the exchange's end at its deadline");
    const failures = (await replies).map((r) => (r.ok ? null : r.failure));
    assert.deepEqual(
      failures.map((f) => f?.kind),
      ["timeout", "timeout", "timeout"],
    );
    assert.equal(failures[0]?.message, "no reply within 300 ms");
    assert.equal(conn.isOpen, false, "a late reply would desynchronise the conversation");
  });

  it("holds at most maxQueuedReplies unread replies: one more is a protocol failure, not growth", async () => {
    const port = await rawServer((s) => s.end(`220 ready\r\n${"250 unasked\r\n".repeat(10)}`));
    const connected = await SmtpConnection.connect({
      host: "127.0.0.1",
      port,
      connectTimeoutMs: 500,
      maxQueuedReplies: 5,
    });
    assert.ok(connected.ok);
    const conn = connected.value;
    // Nothing is read until the server is done, so every reply arrives unasked.
    await untilIo(() => !conn.isOpen, "the connection's end");
    const codes: number[] = [];
    for (;;) {
      const reply = await conn.readReply(1000);
      if (!reply.ok) {
        assert.equal(reply.failure.kind, "protocol");
        assert.equal(reply.failure.message, "more than 5 replies nobody asked for");
        break;
      }
      codes.push(reply.value.code);
    }
    assert.deepEqual(codes, [220, 250, 250, 250, 250], "the five held, none beyond");
  });

  it("refuses commands with line breaks (no command injection)", async () => {
    const port = await rawServer((s) => s.write("220 ready\r\n"));
    const conn = await open(port);
    await conn.readReply(1000);
    const r = await conn.command("RCPT TO:<a@b.c>\r\nDATA", 1000);
    assert.equal(!r.ok && r.failure.kind, "protocol");
    conn.close();
  });

  it("reports a refused connection as connect_refused", async () => {
    const port = await rawServer(() => {});
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const r = await SmtpConnection.connect({ host: "127.0.0.1", port, connectTimeoutMs: 500 });
    assert.equal(!r.ok && r.failure.kind, "connect_refused");
  });

  it("connects through a SOCKS5 proxy, and reports the target's refusal as connect_refused", async () => {
    const proxy = await startSocksServer();
    try {
      const port = await rawServer((s) => s.write("220 via proxy\r\n"));
      const conn = await open(port, `socks5://127.0.0.1:${proxy.port}`);
      const r = await conn.readReply(1000);
      assert.ok(r.ok && r.value.text === "via proxy");
      conn.close();
      assert.deepEqual(proxy.requests, [`127.0.0.1:${port}`]);
      const closedPort = await rawServer(() => {});
      await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
      const refused = await SmtpConnection.connect({
        host: "127.0.0.1",
        port: closedPort,
        connectTimeoutMs: 500,
        socksProxy: `socks5://127.0.0.1:${proxy.port}`,
      });
      assert.equal(!refused.ok && refused.failure.kind, "connect_refused");
    } finally {
      await proxy.close();
    }
  });
});

describe("EmailEngine through a SOCKS5 proxy", () => {
  it("probes the MX through the proxy when socksProxy is set", async () => {
    const dnsServer = await startDnsServer({
      "proxied.test": { MX: [{ exchange: "mx.proxied.test", priority: 10 }] },
      "mx.proxied.test": { A: ["127.0.0.21"] },
    });
    const smtp = await startSmtpServer({ "127.0.0.21": { mailboxes: ["ann@proxied.test"] } });
    const proxy = await startSocksServer();
    const dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 300 });
    try {
      const engine = new EmailEngine({
        dns,
        smtpPort: smtp.port,
        heloName: "verifier.test",
        mailFrom: "probe@verifier.test",
        connectSmtp: smtpConnector({ socksProxy: `socks5://127.0.0.1:${proxy.port}` }),
        connectTimeoutMs: 500,
        commandTimeoutMs: 500,
        totalDeadlineMs: 3000,
        maxConnectionsPerMx: 1,
      });
      const [ann, bob] = await engine.verifyMany(["ann@proxied.test", "bob@proxied.test"]);
      await engine.close();
      assert.equal(ann!.status, "valid");
      assert.equal(bob!.status, "invalid");
      assert.deepEqual(proxy.requests, [`127.0.0.21:${smtp.port}`]);
    } finally {
      dns.close();
      await proxy.close();
      await smtp.close();
      await dnsServer.close();
    }
  });
});
