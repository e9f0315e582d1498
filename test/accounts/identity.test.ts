// Identity tokens verified against a JWKS served on loopback (RS256 and ES256), with issuer and
// audience checks, and against an HS256 secret.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { after, before, describe, it } from "node:test";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { IdentityVerifier } from "../../src/accounts/identity.js";

describe("identity tokens", () => {
  let server: Server;
  let jwksUrl = "";
  let rsa: Awaited<ReturnType<typeof generateKeyPair>>;
  let ec: Awaited<ReturnType<typeof generateKeyPair>>;
  let rogue: Awaited<ReturnType<typeof generateKeyPair>>;

  before(async () => {
    rsa = await generateKeyPair("RS256");
    ec = await generateKeyPair("ES256");
    rogue = await generateKeyPair("RS256");
    const keys: JWK[] = [
      { ...(await exportJWK(rsa.publicKey)), kid: "rsa1", alg: "RS256", use: "sig" },
      { ...(await exportJWK(ec.publicKey)), kid: "ec1", alg: "ES256", use: "sig" },
    ];
    server = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ keys }));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    jwksUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/.well-known/jwks.json`;
  });
  after(() => server?.close());

  const sign = (
    key: Parameters<SignJWT["sign"]>[0],
    alg: string,
    kid: string,
    claims: { sub?: string; iss?: string; aud?: string; exp?: string },
  ) => {
    let jwt = new SignJWT({})
      .setProtectedHeader({ alg, kid })
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? "5m");
    if (claims.sub) jwt = jwt.setSubject(claims.sub);
    if (claims.iss) jwt = jwt.setIssuer(claims.iss);
    if (claims.aud) jwt = jwt.setAudience(claims.aud);
    return jwt.sign(key);
  };

  it("accepts RS256 and ES256 tokens from the JWKS with the right issuer and audience", async () => {
    const v = new IdentityVerifier({ jwksUrl, issuer: "https://idp.test/", audience: "leadcheck" });
    const claims = { sub: "user_42", iss: "https://idp.test/", aud: "leadcheck" };
    // No email claims: the identity carries none (an invitation needs a verified email).
    const expected = { accountId: "user_42", email: null, emailVerified: false };
    assert.deepEqual(await v.verify(await sign(rsa.privateKey, "RS256", "rsa1", claims)), expected);
    assert.deepEqual(await v.verify(await sign(ec.privateKey, "ES256", "ec1", claims)), expected);
  });

  it("refuses a wrong issuer, a wrong audience, an expired token, an unknown key and a missing sub", async () => {
    const v = new IdentityVerifier({ jwksUrl, issuer: "https://idp.test/", audience: "leadcheck" });
    const good = { sub: "user_42", iss: "https://idp.test/", aud: "leadcheck" };
    assert.equal(
      await v.verify(await sign(rsa.privateKey, "RS256", "rsa1", { ...good, iss: "https://evil.test/" })),
      undefined,
    );
    assert.equal(
      await v.verify(await sign(rsa.privateKey, "RS256", "rsa1", { ...good, aud: "other" })),
      undefined,
    );
    assert.equal(
      await v.verify(await sign(rsa.privateKey, "RS256", "rsa1", { ...good, exp: "-1m" })),
      undefined,
    );
    assert.equal(await v.verify(await sign(rogue.privateKey, "RS256", "rsa1", good)), undefined);
    assert.equal(
      await v.verify(await sign(rsa.privateKey, "RS256", "rsa1", { iss: good.iss, aud: good.aud })),
      undefined,
    );
    assert.equal(await v.verify("not.a.jwt"), undefined);
  });

  it("accepts HS256 tokens signed with the shared secret and nothing signed otherwise", async () => {
    const secret = new TextEncoder().encode("small-install-secret");
    const v = new IdentityVerifier({ jwtSecret: "small-install-secret" });
    assert.deepEqual(await v.verify(await sign(secret, "HS256", "k", { sub: "team" })), {
      accountId: "team",
      email: null,
      emailVerified: false,
    });
    const other = new TextEncoder().encode("another-secret");
    assert.equal(await v.verify(await sign(other, "HS256", "k", { sub: "team" })), undefined);
    assert.equal(
      await v.verify(await sign(rsa.privateKey, "RS256", "rsa1", { sub: "team" })),
      undefined,
      "no JWKS configured",
    );
  });
});
