import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DnsResolver, parseDnsServer } from "../../src/net/dns.js";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.js";
import { ioTurns, mockClock, untilIo } from "../support/mock-clock.js";

describe("DnsResolver against a local DNS server", () => {
  let server: TestDnsServer;
  let clock = 1_000_000;
  let resolver: DnsResolver;

  before(async () => {
    server = await startDnsServer({
      "example.test": {
        A: ["127.0.0.10"],
        AAAA: ["::1"],
        MX: [
          { exchange: "mx2.example.test", priority: 20 },
          { exchange: "mx1.example.test", priority: 10 },
        ],
        NS: ["ns1.parkingcrew.net"],
        TXT: ["v=spf1 -all"],
        ttl: 30,
      },
      "www.example.test": { CNAME: "example.test" },
      "nullmx.test": { MX: [{ exchange: "", priority: 0 }] },
      "broken.test": { rcode: "SERVFAIL" },
      "silent.test": { silent: true },
      "empty.test": {},
    });
    resolver = new DnsResolver({ servers: [server.address], timeoutMs: 300, now: () => clock });
  });
  after(async () => {
    resolver.close();
    await server.close();
  });

  it("returns A, AAAA, MX, NS and TXT records with their TTL", async () => {
    const a = await resolver.resolve("example.test", "A");
    assert.deepEqual(a, { ok: true, records: ["127.0.0.10"], ttlSeconds: 30 });
    const mx = await resolver.resolve("Example.Test.", "MX");
    assert.ok(mx.ok);
    assert.deepEqual(
      mx.records.map((r) => r.exchange),
      ["mx2.example.test", "mx1.example.test"],
    );
    const ns = await resolver.resolve("example.test", "NS");
    assert.ok(ns.ok && ns.records[0] === "ns1.parkingcrew.net");
    const txt = await resolver.resolve("example.test", "TXT");
    assert.ok(txt.ok && txt.records[0] === "v=spf1 -all");
    const both = await resolver.resolveAddresses("example.test");
    assert.ok(both.ok && both.records.length === 2);
  });

  it("follows a CNAME for address lookups and reports the CNAME itself", async () => {
    const a = await resolver.resolve("www.example.test", "A");
    assert.ok(a.ok && a.records[0] === "127.0.0.10");
    const c = await resolver.resolve("www.example.test", "CNAME");
    assert.ok(c.ok && c.records[0] === "example.test");
  });

  it("distinguishes NXDOMAIN, NODATA, SERVFAIL and TIMEOUT", async () => {
    const nx = await resolver.resolve("missing.test", "A");
    assert.equal(!nx.ok && nx.failure, "NXDOMAIN");
    const nodata = await resolver.resolve("empty.test", "MX");
    assert.equal(!nodata.ok && nodata.failure, "NODATA");
    const sf = await resolver.resolve("broken.test", "MX");
    assert.equal(!sf.ok && sf.failure, "SERVFAIL");
    const to = await resolver.resolve("silent.test", "A");
    assert.equal(!to.ok && to.failure, "TIMEOUT");
  });

  it("keeps a Null MX visible as an empty exchange", async () => {
    const mx = await resolver.resolve("nullmx.test", "MX");
    assert.ok(mx.ok);
    assert.deepEqual(mx.records, [{ exchange: "", priority: 0 }]);
  });

  it("serves repeated lookups from the cache until the TTL expires", async () => {
    const count = () => server.queries.filter((q) => q === "A example.test").length;
    resolver.clearCache();
    await resolver.resolve("example.test", "A");
    const before = count();
    await resolver.resolve("example.test", "A");
    assert.equal(count(), before, "second lookup within the TTL is cached");
    clock += 31_000;
    await resolver.resolve("example.test", "A");
    assert.equal(count(), before + 1, "lookup after the TTL goes to the server");
  });

  it("parses server specs with and without ports", () => {
    assert.deepEqual(parseDnsServer("127.0.0.1:5353"), { host: "127.0.0.1", port: 5353 });
    assert.deepEqual(parseDnsServer("10.0.0.1"), { host: "10.0.0.1", port: 53 });
    assert.deepEqual(parseDnsServer("[::1]:53"), { host: "::1", port: 53 });
    assert.throws(() => parseDnsServer("dns.example"));
  });
});

// The clock is mocked (timers and Date): the fake servers' UDP traffic is real, and the test moves
// time on by hand, so what is proven is where in the budget each send and the end fall, whatever
// the machine's load.
describe("DnsResolver: every try of a lookup shares its one budget", () => {
  it("gives up on two servers that never answer at the budget, after 3 sends to each, not tries x timeout", async (t) => {
    const first = await startDnsServer({ "silent.test": { silent: true } });
    const second = await startDnsServer({ "silent.test": { silent: true } });
    const clock = mockClock(t);
    const budgetMs = 1200;
    const resolver = new DnsResolver({ servers: [first.address, second.address], timeoutMs: budgetMs });
    try {
      let isAnswered = false;
      const lookup = resolver.resolve("silent.test", "A").finally(() => {
        isAnswered = true;
      });
      // Each server gets a third of its half of the budget per send: 200 ms apart.
      const sendsAt: [number, number][] = [];
      for (let at = 0; at < budgetMs; at += 200) {
        if (at > 0) clock.tick(200);
        const expected = at / 200 + 1;
        await untilIo(() => first.queries.length + second.queries.length === expected, `send ${expected}`);
        sendsAt.push([first.queries.length, second.queries.length]);
        assert.equal(isAnswered, false, `still waiting at ${at} ms`);
      }
      assert.deepEqual(sendsAt, [
        [1, 0],
        [2, 0],
        [3, 0],
        [3, 1],
        [3, 2],
        [3, 3],
      ]);
      clock.tick(199);
      await ioTurns(20);
      assert.equal(isAnswered, false, "still waiting 1 ms before the budget ends");
      clock.tick(1);
      await untilIo(() => isAnswered, "the lookup's end at the budget");
      const answer = await lookup;
      assert.equal(!answer.ok && answer.failure, "TIMEOUT");
      assert.equal(first.queries.length + second.queries.length, 6, "no send past the budget");
    } finally {
      resolver.close();
      await first.close();
      await second.close();
    }
  });

  it("ends the lookup at its budget even when dns-socket's silence checks fall after it", async (t) => {
    const first = await startDnsServer({
      "warm.test": { A: ["192.0.2.1"] },
      "silent.test": { silent: true },
    });
    const second = await startDnsServer({ "silent.test": { silent: true } });
    const clock = mockClock(t);
    const budgetMs = 1200;
    const resolver = new DnsResolver({ servers: [first.address, second.address], timeoutMs: budgetMs });
    try {
      assert.equal((await resolver.resolve("warm.test", "A")).ok, true);
      // The socket checks for silent servers every 20 ms from 0; this lookup starts 10 ms later, so
      // each check falls 10 ms after a send is due.
      clock.tick(10);
      let isAnswered = false;
      const lookup = resolver.resolve("silent.test", "A").finally(() => {
        isAnswered = true;
      });
      for (let elapsed = 10; elapsed < budgetMs; elapsed += 10) {
        clock.tick(10);
        await ioTurns(5);
        assert.equal(isAnswered, false, `still waiting ${elapsed} ms into the lookup`);
      }
      clock.tick(10);
      await untilIo(() => isAnswered, "the lookup's end at the budget");
      const answer = await lookup;
      assert.equal(!answer.ok && answer.failure, "TIMEOUT");
      assert.match(answer.ok ? "" : answer.message, /no answer within 1200 ms/);
    } finally {
      resolver.close();
      await first.close();
      await second.close();
    }
  });
});
