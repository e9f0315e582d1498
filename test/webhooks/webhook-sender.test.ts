// The delivery client against a real receiver and a real DNS server on loopback: the SSRF guard
// at registration and at connect, no redirects, the timeout, bounded response bodies, headers.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DnsResolver } from "../../src/net/dns.js";
import { HttpClient } from "../../src/net/http-client.js";
import { verifySignature } from "../../src/webhooks/signature.js";
import { WebhookSender } from "../../src/webhooks/webhook-sender.js";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.js";
import { waitFor } from "../support/wait-for.js";
import { type Receiver, startReceiver } from "./receiver.js";

// A public address for names that must pass the guard; nothing ever connects to it here.
const PUBLIC_ADDRESS = "93.184.216.34";

describe("webhook sender", () => {
  let receiver: Receiver;
  let dnsServer: TestDnsServer;
  let dns: DnsResolver;
  const sender = (
    allowPrivateTargets: boolean,
    extra: { timeoutMs?: number; responseBodyMaxBytes?: number } = {},
  ) =>
    new WebhookSender({
      client: new HttpClient({ dns, allowPrivateTargets, userAgent: "leadcheck-webhooks/test" }),
      timeoutMs: extra.timeoutMs ?? 2000,
      responseBodyMaxBytes: extra.responseBodyMaxBytes ?? 4096,
    });

  before(async () => {
    receiver = await startReceiver();
    dnsServer = await startDnsServer({
      "hooks.example.com": { A: [PUBLIC_ADDRESS], ttl: 0 },
      "rebind.example.com": { A: [PUBLIC_ADDRESS], ttl: 0 },
      "inside.example.com": { A: ["127.0.0.1"], ttl: 0 },
      "private.example.com": { A: ["10.1.2.3"], ttl: 0 },
      "broken.example.com": { rcode: "SERVFAIL" },
    });
    dns = new DnsResolver({ servers: [dnsServer.address], timeoutMs: 500, negativeTtlSeconds: 0 });
  });
  after(async () => {
    dns.close();
    await receiver.close();
    await dnsServer.close();
  });

  const signed = (url: string) => ({
    url,
    body: '{"event":"lead.created","eventId":"evt_1"}',
    secret: "whsec_unit",
    event: "lead.created",
    deliveryId: "dlv_1",
  });

  describe("registration check", () => {
    const refused: [string, string][] = [
      ["a loopback literal", "http://127.0.0.1:8080/hook"],
      ["a loopback literal in another spelling", "http://2130706433/hook"],
      ["IPv6 loopback", "http://[::1]/hook"],
      ["an IPv4-mapped loopback", "http://[::ffff:127.0.0.1]/hook"],
      ["a private literal", "https://192.168.1.10/hook"],
      ["the cloud metadata address", "http://169.254.169.254/latest/meta-data"],
      ["localhost", "http://localhost:3000/hook"],
      ["a name resolving to loopback", "https://inside.example.com/hook"],
      ["a name resolving to a private address", "https://private.example.com/hook"],
      ["a name that does not exist", "https://nowhere.example.com/hook"],
      ["a non-http scheme", "ftp://hooks.example.com/hook"],
      ["credentials in the URL", "https://user:pass@hooks.example.com/hook"],
      ["a relative URL", "/hook"],
      ["an over-long URL", `https://hooks.example.com/${"a".repeat(2100)}`],
    ];
    for (const [label, url] of refused) {
      it(`refuses ${label}`, async () => {
        const verdict = await sender(false).checkUrl(url);
        assert.equal(verdict.ok, false, url);
      });
    }

    it("accepts a name resolving to a public address", async () => {
      assert.deepEqual(await sender(false).checkUrl("https://hooks.example.com/hook#frag"), {
        ok: true,
        url: "https://hooks.example.com/hook",
      });
    });

    it("accepts a name whose resolver fails for now (the connect-time guard still applies)", async () => {
      assert.equal((await sender(false).checkUrl("https://broken.example.com/hook")).ok, true);
    });

    it("accepts loopback when ALLOW_PRIVATE_TARGETS is set", async () => {
      assert.equal((await sender(true).checkUrl(receiver.url())).ok, true);
    });
  });

  describe("delivery", () => {
    it("refuses a loopback receiver at connect time and sends nothing", async () => {
      const before = receiver.received.length;
      const result = await sender(false).sendSigned(signed(receiver.url()));
      assert.equal(result.ok, false);
      assert.equal(result.failure, "blocked");
      assert.equal(receiver.received.length, before);
    });

    it("refuses a name that was public at registration and resolves to loopback at delivery", async () => {
      const url = `http://rebind.example.com:${receiver.port}/hook`;
      assert.equal((await sender(false).checkUrl(url)).ok, true);
      dnsServer.set("rebind.example.com", { A: ["127.0.0.1"], ttl: 0 });
      const before = receiver.received.length;
      const result = await sender(false).sendSigned(signed(url));
      assert.equal(result.failure, "blocked");
      assert.equal(receiver.received.length, before);
    });

    it("sends the signed headers and the exact body", async () => {
      const request = signed(receiver.url("/headers"));
      const result = await sender(true).sendSigned(request);
      assert.equal(result.ok, true);
      const got = receiver.received.find((r) => r.path === "/headers")!;
      assert.equal(got.body, request.body);
      assert.equal(got.headers["content-type"], "application/json");
      assert.equal(got.headers["user-agent"], "leadcheck-webhooks/test");
      assert.equal(got.headers["x-webhook-event"], "lead.created");
      assert.equal(got.headers["x-webhook-delivery"], "dlv_1");
      assert.equal(got.headers["x-signature-256"], got.headers["x-webhook-signature"]);
      assert.ok(verifySignature("whsec_unit", got.body, String(got.headers["x-webhook-signature"])));
    });

    it("does not follow redirects and reports them as failures", async () => {
      receiver.on("/moved", () => ({ status: 302, body: "" }));
      const result = await sender(true).sendSigned(signed(receiver.url("/moved")));
      assert.equal(result.ok, false);
      assert.equal(result.httpStatus, 302);
      assert.match(String(result.errorMessage), /redirects are not followed/);
    });

    it("cuts a receiver that never answers at the timeout", async () => {
      receiver.on("/hang", () => "hang");
      const result = await sender(true, { timeoutMs: 300 }).sendSigned(signed(receiver.url("/hang")));
      assert.equal(result.ok, false);
      assert.equal(result.failure, "timeout");
      assert.match(String(result.errorMessage), /no response within 300 ms/);
      await waitFor(() => receiver.abandoned() >= 1, "the receiver to see the request abandoned", 2000);
    });

    it("keeps at most the configured number of response bytes", async () => {
      receiver.on("/chatty", () => ({ status: 500, body: "e".repeat(10_000) }));
      const result = await sender(true, { responseBodyMaxBytes: 100 }).sendSigned(
        signed(receiver.url("/chatty")),
      );
      assert.equal(result.httpStatus, 500);
      assert.equal(result.responseBody?.length, 100);
      assert.equal(result.responseTruncated, true);
      assert.equal(result.errorMessage, "receiver answered 500");
    });

    it("sends ad-hoc callbacks unsigned, once", async () => {
      receiver.on("/adhoc", () => ({ status: 503 }));
      const result = await sender(true).sendUnsigned(receiver.url("/adhoc"), {
        event: "validation.complete",
        jobId: "job_1",
      });
      assert.equal(result.ok, false);
      const got = receiver.received.filter((r) => r.path === "/adhoc");
      assert.equal(got.length, 1);
      assert.equal(got[0]!.headers["x-webhook-signature"], undefined);
      assert.equal(got[0]!.headers["x-webhook-event"], "validation.complete");
      assert.deepEqual(got[0]!.json, { event: "validation.complete", jobId: "job_1" });
    });

    it("answers a malformed or non-http callback URL with a failure, never a throw", async () => {
      for (const url of ["not a url", "ftp://127.0.0.1/x", "http://user:pw@127.0.0.1/x"]) {
        const result = await sender(true).sendUnsigned(url, { event: "x" });
        assert.equal(result.ok, false, url);
        assert.match(String(result.errorMessage), /^invalid URL/);
      }
    });

    it("refuses ad-hoc callbacks to guarded addresses", async () => {
      const result = await sender(false).sendUnsigned(receiver.url("/adhoc-blocked"), { event: "x" });
      assert.equal(result.failure, "blocked");
      assert.equal(receiver.received.filter((r) => r.path === "/adhoc-blocked").length, 0);
    });
  });
});
