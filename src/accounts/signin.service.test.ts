// Sign-in link rules on an in-memory SQLite database: one exchange per link, expiry, the purpose
// claim, and session tokens that the identity verifier accepts while sign-in tokens are refused.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SignJWT } from "jose";
import type { Clock } from "../lib/clock.js";
import { type Database, migrateToLatest, openDatabase } from "../storage/db.js";
import { IdentityVerifier } from "./identity.js";
import {
  MAX_SIGNIN_TTL_MS,
  parseDurationMs,
  SigninLinks,
  SigninService,
  signinUrl,
} from "./signin.service.js";
import { SigninTokensRepo } from "./signin-tokens.repo.js";

const SECRET = "unit-test-secret";
const BASE = "http://127.0.0.1:8080";

// Starts at the real time (whole seconds) so the verifier, which reads the real clock, agrees.
const T0 = Math.floor(Date.now() / 1000) * 1000;
const at = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();

function movableClock(): Clock & { advance(ms: number): void } {
  let now = T0;
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

const tokenOf = (url: string) => url.split("#signin=")[1]!;

describe("sign-in links", () => {
  let database: Database;
  const clock = movableClock();
  let service: SigninService;

  before(async () => {
    database = openDatabase("sqlite::memory:");
    await migrateToLatest(database.db);
    service = new SigninService(database.db, new SigninTokensRepo(), { secret: SECRET, clock });
  });
  after(() => database?.close());

  it("parses durations with a unit and nothing else", () => {
    assert.equal(parseDurationMs("90s"), 90_000);
    assert.equal(parseDurationMs("15m"), 900_000);
    assert.equal(parseDurationMs("2H"), 7_200_000);
    for (const bad of ["15", "m", "1.5h", "-5m", "1d", ""])
      assert.equal(parseDurationMs(bad), undefined, bad);
  });

  it("puts the token in the URL fragment of the dashboard", () => {
    assert.equal(signinUrl("http://h:1/", "abc"), "http://h:1/dashboard/#signin=abc");
  });

  it("refuses to mint without a secret, for a bad account id or beyond 24 hours", async () => {
    const off = new SigninLinks({ secret: undefined, clock });
    assert.equal((await off.createLink("alice", 60_000, BASE)).kind, "disabled");
    assert.equal((await service.createLink("bad user!", 60_000, BASE)).kind, "invalid_user");
    assert.equal((await service.createLink("alice", MAX_SIGNIN_TTL_MS + 1000, BASE)).kind, "invalid_ttl");
    assert.equal((await service.createLink("alice", 0, BASE)).kind, "invalid_ttl");
  });

  it("exchanges a link once for a 12-hour session token the identity verifier accepts", async () => {
    const link = await service.createLink("alice", 15 * 60_000, BASE);
    assert.equal(link.kind, "link");
    if (link.kind !== "link") return;
    assert.equal(link.expiresAt, at(15 * 60_000));

    const first = await service.exchange(tokenOf(link.url));
    assert.equal(first.kind, "session");
    if (first.kind !== "session") return;
    assert.equal(first.accountId, "alice");
    assert.equal(first.expiresAt, at(12 * 3_600_000));
    assert.deepEqual((await service.exchange(tokenOf(link.url))).kind, "reused");

    const verifier = new IdentityVerifier({ jwtSecret: SECRET });
    assert.deepEqual(await verifier.verify(first.token), {
      accountId: "alice",
      email: null,
      emailVerified: false,
    });
    assert.equal(await verifier.verify(tokenOf(link.url)), undefined, "a sign-in token is no bearer token");
  });

  it("refuses an expired link, and forgets used links once they have expired", async () => {
    const used = await service.createLink("bob", 60_000, BASE);
    const unused = await service.createLink("bob", 60_000, BASE);
    if (used.kind !== "link" || unused.kind !== "link") throw new Error("no link");
    assert.equal((await service.exchange(tokenOf(used.url))).kind, "session");
    clock.advance(61_000);
    try {
      assert.equal((await service.exchange(tokenOf(unused.url))).kind, "expired");
      assert.equal((await service.exchange(tokenOf(used.url))).kind, "expired", "expired beats reused");
      const fresh = await service.createLink("bob", 60_000, BASE);
      if (fresh.kind !== "link") throw new Error(fresh.kind);
      assert.equal((await service.exchange(tokenOf(fresh.url))).kind, "session");
      const rows = await database.db
        .withTables<{ signin_tokens: { jti: string; expires_at: string } }>()
        .selectFrom("signin_tokens")
        .select("expires_at")
        .execute();
      assert.ok(rows.length > 0);
      assert.ok(
        rows.every((r) => r.expires_at >= at(61_000)),
        "rows of expired links are purged",
      );
    } finally {
      clock.advance(-61_000);
    }
  });

  it("refuses tokens that are not sign-in tokens: other purpose, other secret, garbage", async () => {
    const link = await service.createLink("carol", 60_000, BASE);
    if (link.kind !== "link") throw new Error(link.kind);
    const session = await service.exchange(tokenOf(link.url));
    if (session.kind !== "session") throw new Error(session.kind);
    assert.equal((await service.exchange(session.token)).kind, "invalid", "a session token");
    const key = new TextEncoder().encode(SECRET);
    const plain = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("carol")
      .setJti("j1")
      .setIssuedAt(new Date(T0))
      .setExpirationTime(new Date(T0 + 3_600_000))
      .sign(key);
    assert.equal((await service.exchange(plain)).kind, "invalid", "an ordinary identity token");
    const other = new SigninService(database.db, new SigninTokensRepo(), { secret: "another-secret", clock });
    const foreign = await other.createLink("carol", 60_000, BASE);
    if (foreign.kind !== "link") throw new Error(foreign.kind);
    assert.equal((await service.exchange(tokenOf(foreign.url))).kind, "invalid");
    assert.equal((await service.exchange("not.a.jwt")).kind, "invalid");
  });

  it("sets issuer and audience when the verifier requires them", async () => {
    const strict = new SigninService(database.db, new SigninTokensRepo(), {
      secret: SECRET,
      clock,
      issuer: "lc",
      audience: "dash",
    });
    const link = await strict.createLink("dave", 60_000, BASE);
    if (link.kind !== "link") throw new Error(link.kind);
    const session = await strict.exchange(tokenOf(link.url));
    if (session.kind !== "session") throw new Error(session.kind);
    const verifier = new IdentityVerifier({ jwtSecret: SECRET, issuer: "lc", audience: "dash" });
    assert.deepEqual(await verifier.verify(session.token), {
      accountId: "dave",
      email: null,
      emailVerified: false,
    });
  });
});
