// POST /v1/auth/session (dashboard sign-in links) through the real app on each dialect, and the
// dashboard's static serving: cache headers, CSP, SPA fallback, hidden from OpenAPI, 503 unbuilt.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Fastify from "fastify";
import { SigninLinks } from "../../src/accounts/signin.service.js";
import { dashboardRoutes } from "../../src/http/dashboard.js";
import { dialects, skipReasonFor } from "../support/db.js";
import { type Harness, startHarness, TEST_JWT_SECRET, UNLIMITED_RATE_ENV } from "../support/harness.js";
import { runCli } from "../support/process.js";

async function linkToken(accountId: string, options: { ageMs?: number; secret?: string } = {}) {
  const issuedAt = Date.now() - (options.ageMs ?? 0);
  const links = new SigninLinks({
    secret: options.secret ?? TEST_JWT_SECRET,
    clock: { now: () => new Date(issuedAt) },
  });
  const link = await links.createLink(accountId, 15 * 60_000, "http://127.0.0.1");
  if (link.kind !== "link") throw new Error(link.kind);
  return link.token;
}

for (const kind of dialects()) {
  describe(`dashboard sessions (${kind})`, async () => {
    const skip = await skipReasonFor(kind);
    let h: Harness;
    before(async () => {
      if (!skip) h = await startHarness(kind, UNLIMITED_RATE_ENV);
    });
    after(async () => h?.close());

    const exchange = (token: unknown) =>
      h.app.inject({ method: "POST", url: "/v1/auth/session", payload: { token } });
    const keysWith = (bearer: string) =>
      h.app.inject({ method: "GET", url: "/v1/auth/keys", headers: { authorization: `Bearer ${bearer}` } });

    it("trades a sign-in token once for a session token that manages keys", { skip }, async () => {
      const token = await linkToken("acct_dash");
      const res = await exchange(token);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.token_type, "Bearer");
      assert.equal(body.account_id, "acct_dash");
      const hoursLeft = (Date.parse(body.expires_at) - Date.now()) / 3_600_000;
      assert.ok(hoursLeft > 11.9 && hoursLeft <= 12, `12 h session, got ${hoursLeft}`);
      assert.equal((await keysWith(body.token)).statusCode, 200);

      const again = await exchange(token);
      assert.equal(again.statusCode, 401);
      assert.equal(again.json().error_code, "UNAUTHORIZED");
      assert.match(again.json().message, /already used/);
    });

    it("never accepts a sign-in token as a bearer token", { skip }, async () => {
      const token = await linkToken("acct_dash");
      for (const url of ["/v1/auth/keys", "/v1/credits", "/v1/leads"]) {
        const res = await h.app.inject({ method: "GET", url, headers: { authorization: `Bearer ${token}` } });
        assert.equal(res.statusCode, 401, url);
      }
      assert.equal((await exchange(token)).statusCode, 200, "still unused, so still exchangeable");
    });

    it("refuses expired, foreign and non-sign-in tokens with 401 and the error body", { skip }, async () => {
      const cases: [string, string, RegExp][] = [
        ["expired", await linkToken("acct_dash", { ageMs: 16 * 60_000 }), /expired/],
        ["other secret", await linkToken("acct_dash", { secret: "not-the-server-secret" }), /Invalid/],
        ["identity token", await h.token("acct_dash"), /Invalid/],
        ["garbage", "abc.def.ghi", /Invalid/],
      ];
      for (const [label, token, message] of cases) {
        const res = await exchange(token);
        assert.equal(res.statusCode, 401, label);
        const body = res.json();
        assert.deepEqual(Object.keys(body).slice(0, 4), ["error", "error_code", "message", "details"], label);
        assert.match(body.message, message, label);
      }
      const missing = await h.app.inject({ method: "POST", url: "/v1/auth/session", payload: {} });
      assert.equal(missing.statusCode, 422);
      assert.equal(missing.json().error_code, "VALIDATION_ERROR");
    });

    it("documents the exchange and hides the dashboard from the OpenAPI document", { skip }, async () => {
      const doc = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
      assert.ok(doc.paths["/v1/auth/session"]?.post, "documented");
      assert.deepEqual(doc.paths["/v1/auth/session"].post.security, []);
      for (const path of Object.keys(doc.paths)) assert.doesNotMatch(path, /dashboard|^\/$/);
      const root = await h.app.inject({ method: "GET", url: "/" });
      assert.equal(root.statusCode, 302);
      assert.equal(root.headers.location, "/dashboard/");
    });
  });
}

describe("leadcheck dashboard link", () => {
  it("prints a link that the server exchanges, and refuses without a secret or with a bad ttl", async () => {
    const env = { AUTH_JWT_SECRET: TEST_JWT_SECRET, DATABASE_URL: "sqlite::memory:" };
    const [ok, noSecret, badTtl, badUser] = await Promise.all([
      runCli(["dashboard", "link", "--user", "acct_cli", "--ttl", "2h", "--url", "http://127.0.0.1:9/"], env),
      runCli(["dashboard", "link", "--user", "acct_cli"], { ...env, AUTH_JWT_SECRET: "" }),
      runCli(["dashboard", "link", "--user", "acct_cli", "--ttl", "25h"], env),
      runCli(["dashboard", "link", "--user", "no spaces"], env),
    ]);
    assert.equal(ok.code, 0, ok.output);
    const link = /^http:\/\/127\.0\.0\.1:9\/dashboard\/#signin=(\S+)$/m.exec(ok.output);
    assert.ok(link, ok.output);
    assert.match(ok.output, /Single use, valid until/);
    const claims = JSON.parse(Buffer.from(link[1]!.split(".")[1]!, "base64url").toString());
    assert.equal(claims.sub, "acct_cli");
    assert.equal(claims.purpose, "dashboard_signin");
    assert.equal(claims.exp - claims.iat, 7200);
    for (const [run, message] of [
      [noSecret, /AUTH_JWT_SECRET/],
      [badTtl, /--ttl/],
      [badUser, /--user/],
    ] as const) {
      assert.equal(run.code, 2, run.output);
      assert.match(run.output, message);
    }
  });
});

describe("dashboard static files", () => {
  let root: string;
  const serve = async (dir: string) => {
    const app = Fastify();
    await dashboardRoutes(app, { root: dir });
    return app;
  };
  before(() => {
    root = mkdtempSync(join(tmpdir(), "leadcheck-dash-"));
    mkdirSync(join(root, "assets"));
    writeFileSync(join(root, "index.html"), "<!doctype html><title>leadcheck</title>");
    writeFileSync(join(root, "assets", "index-abc123.js"), "console.log(1)");
    writeFileSync(join(root, "favicon.svg"), "<svg/>");
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("serves index.html uncached with a self-only CSP, and hashed assets for a year", async () => {
    const app = await serve(root);
    const index = await app.inject({ method: "GET", url: "/dashboard/" });
    assert.equal(index.statusCode, 200);
    assert.match(String(index.headers["content-type"]), /text\/html/);
    assert.equal(index.headers["cache-control"], "no-cache");
    const csp = String(index.headers["content-security-policy"]);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    const asset = await app.inject({ method: "GET", url: "/dashboard/assets/index-abc123.js" });
    assert.equal(asset.statusCode, 200);
    assert.match(String(asset.headers["content-type"]), /javascript/);
    assert.equal(asset.headers["cache-control"], "public, max-age=31536000, immutable");
    await app.close();
  });

  it("answers the app's own paths with index.html but a missing asset with 404", async () => {
    const app = await serve(root);
    for (const url of ["/dashboard/leads/lead_1", "/dashboard/keys?x=1", "/dashboard/index.html"]) {
      const res = await app.inject({ method: "GET", url });
      assert.equal(res.statusCode, 200, url);
      assert.match(res.body, /<title>leadcheck/, url);
    }
    assert.equal((await app.inject({ method: "GET", url: "/dashboard/assets/gone-1.js" })).statusCode, 404);
    const traversal = await app.inject({ method: "GET", url: "/dashboard/..%2f..%2fpackage.json" });
    assert.doesNotMatch(traversal.body, /"name"/);
    const bare = await app.inject({ method: "GET", url: "/dashboard" });
    assert.equal(bare.statusCode, 302);
    assert.equal(bare.headers.location, "/dashboard/");
    await app.close();
  });

  it("picks up a first build and a rebuild without a restart", async () => {
    const dir = join(root, "later");
    const app = await serve(dir);
    assert.equal((await app.inject({ method: "GET", url: "/dashboard/" })).statusCode, 503);
    mkdirSync(join(dir, "assets"), { recursive: true });
    writeFileSync(join(dir, "index.html"), "<title>v1</title>");
    writeFileSync(join(dir, "assets", "a-1.js"), "1");
    assert.equal((await app.inject({ method: "GET", url: "/dashboard/assets/a-1.js" })).statusCode, 200);
    writeFileSync(join(dir, "assets", "b-2.js"), "2");
    writeFileSync(join(dir, "index.html"), "<title>v2</title>");
    utimesSync(join(dir, "index.html"), new Date(), new Date(Date.now() + 5000));
    assert.equal((await app.inject({ method: "GET", url: "/dashboard/assets/b-2.js" })).statusCode, 200);
    await app.close();
  });

  it("answers 503 with what to run while the dashboard is not built", async () => {
    const app = await serve(join(root, "missing"));
    for (const url of ["/dashboard/", "/dashboard/keys"]) {
      const res = await app.inject({ method: "GET", url });
      assert.equal(res.statusCode, 503, url);
      assert.match(res.body, /npm run build:dashboard/);
    }
    await app.close();
  });
});
