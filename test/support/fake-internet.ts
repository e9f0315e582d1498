// A small "internet" on loopback for end-to-end tests of leads and checks: a DNS server for the
// test zone, an SMTP server playing several MX hosts on 127.0.0.x, and HTTP/HTTPS sites with a
// test CA. `env` points the service at it.
import { startDnsServer, type TestDnsServer, type Zone } from "./dns-server.js";
import { startSites, type TestSites } from "./http-servers.js";
import { type MxBehaviour, startSmtpServer, type TestSmtpServer } from "./smtp-server.js";
import { createTestPki, type TestPki } from "./test-ca.js";

const ACME_PAGE =
  "<html><h1>Acme Inc.</h1><p>Industrial fasteners and fixings since 1952. Call +1 555 0100 or write to sales@acme.test.</p></html>";
const PARKED_PAGE = '<html><script src="//www.google.com/adsense/domains/caf.js"></script></html>';

export interface FakeInternet {
  dns: TestDnsServer;
  smtp: TestSmtpServer;
  sites: TestSites;
  /** PEM of the test root CA, for `websiteCa`. */
  ca: string;
  /** The test PKI, to issue certificates for more local servers (an RDAP registry). */
  pki: TestPki;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Mail hosts: acme (knows alice@ and bob@), catchall (accepts all), grey (greylists first tries);
 *  `extraMx` adds hosts (their zone entries go in `extraZone`). */
export async function startFakeInternet(
  extraZone: Zone = {},
  extraMx: Record<string, MxBehaviour> = {},
): Promise<FakeInternet> {
  const pki = await createTestPki();
  const smtp = await startSmtpServer({
    "127.0.0.2": { mailboxes: ["alice@acme.test", "bob@acme.test", "carol@acme.test"] },
    "127.0.0.3": { catchAll: true },
    "127.0.0.4": { greylist: true, mailboxes: ["dave@grey.test"] },
    ...extraMx,
  });
  const leaf = await pki.issue(["acme.test", "www.acme.test", "parked.test", "catchall.test"]);
  const sites = await startSites(
    {
      // Live sites say more than their name: a page that is only a heading is a stub (ADR 0092).
      "acme.test": { body: ACME_PAGE },
      "www.acme.test": { body: ACME_PAGE },
      "parked.test": { body: PARKED_PAGE },
      "catchall.test": {
        body: "<html><h1>Catch All Corp</h1><p>Office supplies for small firms, delivered next day. Call +1 555 0199 or write to hello@catchall.test.</p></html>",
      },
      "broken.test": { status: 503 },
    },
    { fallback: leaf },
  );
  const dns = await startDnsServer({
    "acme.test": {
      A: ["127.0.0.1"],
      MX: [{ exchange: "mx.acme.test", priority: 10 }],
      TXT: ["v=spf1 mx -all"],
    },
    "_dmarc.acme.test": { TXT: ["v=DMARC1; p=quarantine; rua=mailto:dmarc@acme.test"] },
    "www.acme.test": { A: ["127.0.0.1"] },
    "mx.acme.test": { A: ["127.0.0.2"] },
    "catchall.test": { A: ["127.0.0.1"], MX: [{ exchange: "mx.catchall.test", priority: 10 }] },
    "mx.catchall.test": { A: ["127.0.0.3"] },
    "grey.test": { MX: [{ exchange: "mx.grey.test", priority: 10 }] },
    "mx.grey.test": { A: ["127.0.0.4"] },
    "parked.test": { A: ["127.0.0.1"], MX: [{ exchange: "mx.acme.test", priority: 10 }] },
    "broken.test": { A: ["127.0.0.1"] },
    ...extraZone,
  });
  return {
    dns,
    smtp,
    sites,
    ca: pki.ca.cert,
    pki,
    env: {
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: "500",
      SMTP_PORT: String(smtp.port),
      SMTP_HELO_NAME: "verifier.leadcheck.test",
      // The start-up egress self-check connects here instead of a public MX.
      SMTP_EGRESS_PROBE_HOST: "mx.acme.test",
      // The resolver health canaries (ADR 0020): this zone's own, since it has no gmail.com.
      DNS_CANARY_NAMES: "acme.test",
      // The canaries' answers come from this test process, which a loaded machine can stall past
      // DNS_TIMEOUT_MS; one late answer would distrust the resolver until the next round (60 s) and
      // refuse checks with 503. A test of a silent resolver sets its own (network-down.test.ts).
      DNS_CANARY_TIMEOUT_MS: "10000",
      SMTP_CONNECT_TIMEOUT_MS: "2000",
      SMTP_COMMAND_TIMEOUT_MS: "2000",
      SMTP_TOTAL_DEADLINE_MS: "10000",
      WEBSITE_HTTP_PORT: String(sites.httpPort),
      WEBSITE_HTTPS_PORT: String(sites.httpsPort),
      WEBSITE_FIRST_TRY_TIMEOUT_MS: "1000",
      WEBSITE_RETRY_TIMEOUT_MS: "1000",
      WEBSITE_FALLBACK_TIMEOUT_MS: "1000",
      WEBSITE_TOTAL_DEADLINE_MS: "4000",
      ALLOW_PRIVATE_TARGETS: "true",
      JOB_POLL_INTERVAL_MS: "50",
      EMAIL_RETRY_DELAY_CAP_MS: "1000",
    },
    async close() {
      await Promise.all([dns.close(), smtp.close(), sites.close()]);
    },
  };
}
