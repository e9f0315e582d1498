// RDAP_BOOTSTRAP_URL given by IP address: the bootstrap file is fetched over HTTPS from a server
// whose certificate carries that address, and is used instead of the vendored snapshot.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadBootstrap } from "../../src/intel/create-domain-intel.js";
import { loadBootstrapFile } from "../../src/intel/rdap-bootstrap.js";
import { DnsResolver } from "../../src/net/dns.js";
import { HttpClient } from "../../src/net/http-client.js";
import { type FakeRdap, startRdapServer } from "../support/rdap-server.js";
import { createTestPki } from "../support/test-ca.js";

describe("RDAP bootstrap from a URL given by IP address", () => {
  let rdap: FakeRdap;
  let dns: DnsResolver;
  let http: HttpClient;
  const warnings: string[] = [];
  const logger = { warn: (_obj: Record<string, unknown>, message: string) => void warnings.push(message) };

  before(async () => {
    const pki = await createTestPki();
    rdap = await startRdapServer({}, await pki.issue(["127.0.0.1"]), "127.0.0.1");
    dns = new DnsResolver({ servers: ["127.0.0.1:1"], timeoutMs: 100 });
    http = new HttpClient({ dns, allowPrivateTargets: true, ca: pki.ca.cert });
  });
  after(async () => {
    dns.close();
    await rdap.close();
  });

  it("loads the served file over HTTPS, not the vendored snapshot, and warns of nothing", async () => {
    const url = rdap.serveBootstrap(["test"]);
    assert.match(url, /^https:\/\/127\.0\.0\.1:\d+\/dns\.json$/);
    const bootstrap = await loadBootstrap(url, http, logger);
    assert.deepEqual(warnings, []);
    assert.notEqual(bootstrap.publication, loadBootstrapFile().publication);
    assert.deepEqual(bootstrap.serversFor("acme.test"), [rdap.httpsBase]);
  });
});
