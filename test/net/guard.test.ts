import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DnsResolver } from "../../src/net/dns.js";
import { checkTarget, classifyAddress, parseIpLiteral } from "../../src/net/guard.js";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.js";

describe("classifyAddress", () => {
  const cases: [string, string | null][] = [
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["169.254.169.254", "metadata"],
    ["169.254.1.1", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["192.0.2.10", "reserved"],
    ["198.18.0.1", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["::ffff:127.0.0.1", "ipv4-mapped"],
    ["::ffff:8.8.8.8", "ipv4-mapped"],
    ["fd00:ec2::254", "metadata"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1", "link-local"],
    ["ff02::1", "multicast"],
    ["64:ff9b::10.0.0.1", "private"],
    ["2002:7f00:1::", "loopback"],
    ["2001:db8::1", "reserved"],
    ["::127.0.0.1", "reserved"],
    ["8.8.8.8", null],
    ["1.1.1.1", null],
    ["172.32.0.1", null],
    ["100.128.0.1", null],
    ["2606:4700:4700::1111", null],
    ["64:ff9b::8.8.8.8", null],
  ];
  for (const [address, reason] of cases) {
    it(`classifies ${address} as ${reason ?? "public"}`, () => {
      assert.equal(classifyAddress(address), reason);
    });
  }
});

describe("parseIpLiteral", () => {
  const cases: [string, string | null][] = [
    ["127.0.0.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["127.0.1", "127.0.0.1"],
    ["0xA9.0xFE.0xA9.0xFE", "169.254.169.254"],
    ["0251.00376.000251.0000376", "169.254.169.254"],
    ["0", "0.0.0.0"],
    ["[::1]", "::1"],
    ["[0:0:0:0:0:ffff:127.0.0.1]", "::ffff:7f00:1"],
    ["425.510.425.510", null],
    ["4294967296", null],
    ["example.com", null],
  ];
  for (const [input, canonical] of cases) {
    it(`reads ${input} as ${canonical ?? "a name"}`, () => {
      assert.equal(parseIpLiteral(input)?.address ?? null, canonical);
    });
  }
});

describe("checkTarget with a local DNS server", () => {
  let server: TestDnsServer;
  let dns: DnsResolver;

  before(async () => {
    server = await startDnsServer({
      "public.test": { A: ["127.0.0.1"] },
      "mixed.test": { A: ["127.0.0.1", "10.0.0.1"] },
      "v6private.test": { AAAA: ["fd00::1"] },
      "meta.test": { A: ["169.254.169.254"] },
    });
    dns = new DnsResolver({ servers: [server.address], timeoutMs: 2_000 });
  });
  after(async () => {
    dns.close();
    await server.close();
  });

  const strict = () => ({ dns, allowPrivateTargets: false, allowAddresses: ["127.0.0.1"] });

  it("allows an allow-listed address and returns exactly the addresses checked", async () => {
    assert.deepEqual(await checkTarget("public.test", strict()), {
      ok: true,
      addresses: ["127.0.0.1"],
      isIpLiteral: false,
    });
  });

  it("refuses a name when any of its addresses is off limits", async () => {
    const v = await checkTarget("mixed.test", strict());
    assert.ok(!v.ok && v.kind === "blocked" && v.reason === "private" && v.address === "10.0.0.1");
  });

  it("refuses names resolving to metadata and private IPv6 addresses", async () => {
    const meta = await checkTarget("meta.test", strict());
    assert.ok(!meta.ok && meta.kind === "blocked" && meta.reason === "metadata");
    const v6 = await checkTarget("v6private.test", strict());
    assert.ok(!v6.ok && v6.kind === "blocked" && v6.reason === "private");
  });

  it("refuses localhost names without asking DNS", async () => {
    const before = server.queries.length;
    for (const name of ["localhost", "LOCALHOST.", "app.localhost"]) {
      const v = await checkTarget(name, strict());
      assert.ok(!v.ok && v.kind === "blocked" && v.reason === "localhost-name", name);
    }
    assert.equal(server.queries.length, before);
  });

  it("refuses numeric hosts that are not valid addresses", async () => {
    const v = await checkTarget("425.510.425.510", strict());
    assert.ok(!v.ok && v.kind === "blocked" && v.reason === "invalid-ip-literal");
  });

  it("reports DNS failures as such", async () => {
    const v = await checkTarget("missing.test", strict());
    assert.ok(!v.ok && v.kind === "dns" && v.failure === "NXDOMAIN");
  });

  it("lets everything through when private targets are allowed", async () => {
    const v = await checkTarget("meta.test", { dns, allowPrivateTargets: true });
    assert.ok(v.ok && v.addresses[0] === "169.254.169.254");
    const literal = await checkTarget("[::1]", { dns, allowPrivateTargets: true });
    assert.ok(literal.ok && literal.isIpLiteral);
  });
});
