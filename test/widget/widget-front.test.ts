// POST /v1/widget/check-email over a real loopback socket, where the widget's front answers the
// plain case before Fastify (ADR 0056): its answer is the app's (the same fields and headers as
// through inject), and every other case keeps the app's answer: bad JSON, a schema error, a
// control character, an oversized body, another content type, another origin, a preflight from
// another origin, an unknown, secret or revoked key, CAPTCHA, a draining process and a closing app,
// on SQLite and on PostgreSQL with Redis.
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { after, before, describe, it } from "node:test";
import { widgetFront } from "../../src/http/widget-front.js";
import { skipReasonFor } from "../support/db.js";
import { REDIS_TEST_URL, redisSkipReason } from "../support/services.js";
import { waitFor } from "../support/wait-for.js";
import { SHOP, startWidgetWorld, type WidgetWorld } from "./widget-support.js";

// Single process on SQLite (limits in memory), and PostgreSQL with Redis (limits and the key's
// revocation board shared by every instance).
const SETUPS = [
  { name: "sqlite", kind: "sqlite", env: {}, skipReason: () => skipReasonFor("sqlite") },
  {
    name: "postgres and Redis",
    kind: "postgres",
    env: { REDIS_URL: REDIS_TEST_URL },
    skipReason: async () => (await skipReasonFor("postgres")) || (await redisSkipReason()),
  },
] as const;

for (const setup of SETUPS)
  describe(`the widget's front on a real socket (${setup.name})`, async () => {
    const skip = await setup.skipReason();
    let w: WidgetWorld;
    let pk: string;
    let base: string;
    before(async () => {
      if (skip) return;
      w = await startWidgetWorld(setup.kind, setup.env);
      pk = (await w.keyOf("acct_front", { type: "publishable", allowedOrigins: [SHOP] })).api_key;
      await w.h.app.listen({ port: 0, host: "127.0.0.1" });
      base = `http://127.0.0.1:${(w.h.app.server.address() as { port: number }).port}`;
    });
    after(async () => w?.close());

    const post = (body: string, headers: Record<string, string> = {}, key = pk) =>
      fetch(`${base}/v1/widget/check-email?key=${key}`, {
        method: "POST",
        headers: { origin: SHOP, "content-type": "application/json", ...headers },
        body,
      });
    const errorOf = async (res: Response) => {
      const json = (await res.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(json).slice(0, 4), ["error", "error_code", "message", "details"]);
      return json;
    };

    it("answers a plain check as the app does: fields, CORS and request id", { skip }, async () => {
      const res = await post(JSON.stringify({ email: "jane@gmial.com" }), { "x-request-id": "front-1" });
      assert.equal(res.status, 200);
      const json = (await res.json()) as Record<string, unknown>;
      const viaApp = (await w.check(pk, "jane@gmial.com")).json();
      assert.deepEqual(Object.keys(json), Object.keys(viaApp));
      assert.deepEqual({ ...json, token: "" }, { ...viaApp, token: "" });
      assert.equal(res.headers.get("x-request-id"), "front-1");
      assert.equal(res.headers.get("access-control-allow-origin"), SHOP);
      assert.equal(res.headers.get("vary"), "Origin");
      assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    });

    it("counts its answers in the request metrics under the route, as the app counts its own", {
      skip,
    }, async () => {
      const answered = async () => {
        const text = await (await fetch(`${base}/metrics`)).text();
        const line = text
          .split("\n")
          .find(
            (l) =>
              l.startsWith("leadcheck_http_request_duration_seconds_count") &&
              l.includes('route="/v1/widget/check-email"') &&
              l.includes('status_code="200"') &&
              l.includes('method="POST"'),
          );
        return line === undefined ? 0 : Number(line.split(" ").at(-1));
      };
      const before = await answered();
      assert.equal((await post(JSON.stringify({ email: "temp@mailinator.com" }))).status, 200);
      assert.equal(await answered(), before + 1);
    });

    it("keeps the app's error answers for bad JSON, schema errors and control characters", {
      skip,
    }, async () => {
      const bad = await post("{not json", { "x-request-id": "front-2" });
      assert.equal(bad.status, 400);
      assert.equal((await errorOf(bad)).error_code, "INVALID_JSON");
      assert.equal(bad.headers.get("x-request-id"), "front-2");
      assert.equal(bad.headers.get("access-control-allow-origin"), SHOP);
      const poisoned = await post('{"email":"a@b.test","__proto__":{"x":1}}');
      assert.equal(poisoned.status, 400);
      const empty = await post(JSON.stringify({ email: "" }));
      assert.equal(empty.status, 422);
      const missing = await post(JSON.stringify({ mail: "a@b.test" }));
      assert.equal(missing.status, 422);
      const control = await post(JSON.stringify({ email: "jane\u0000@gmial.com" }));
      assert.equal(control.status, 422);
      const detail = await errorOf(control);
      assert.match(JSON.stringify(detail), /email/);
    });

    it("refuses an oversized body, another content type and another origin as the app does", {
      skip,
    }, async () => {
      const limit = w.h.services.config.limits.maxBodyBytes;
      const big = await post(JSON.stringify({ email: "a@b.test", pad: "x".repeat(limit) }));
      assert.equal(big.status, 413);
      assert.equal((await errorOf(big)).error_code, "PAYLOAD_TOO_LARGE");
      const text = await post(JSON.stringify({ email: "a@b.test" }), { "content-type": "text/plain" });
      assert.equal(text.status, 415);
      assert.equal((await errorOf(text)).error_code, "UNSUPPORTED_MEDIA_TYPE");
      const evil = await post(JSON.stringify({ email: "a@b.test" }), { origin: "https://evil.test" });
      assert.equal(evil.status, 403);
      assert.equal((await errorOf(evil)).error_code, "ORIGIN_NOT_ALLOWED");
      assert.equal(evil.headers.get("access-control-allow-origin"), null);
      const unknownKey = await post(JSON.stringify({ email: "a@b.test" }), {}, `pk_${"x".repeat(40)}`);
      assert.equal(unknownKey.status, 401);
    });

    it("refuses a secret key, a revoked key on the next request, and an unsolved CAPTCHA", {
      skip,
    }, async () => {
      const sk = await w.h.apiKey("acct_front");
      const withSecret = await post(JSON.stringify({ email: "a@b.test" }), {}, sk);
      assert.equal(withSecret.status, 403);
      assert.equal((await errorOf(withSecret)).error_code, "INSUFFICIENT_PERMISSIONS");
      const created = await w.keyOf("acct_front", { type: "publishable", allowedOrigins: [SHOP] });
      assert.equal((await post(JSON.stringify({ email: "a@b.test" }), {}, created.api_key)).status, 200);
      await w.h.app.inject({
        method: "DELETE",
        url: `/v1/auth/keys/${created.key_id}`,
        headers: { authorization: `Bearer ${await w.h.token("acct_front")}` },
      });
      const revoked = await post(JSON.stringify({ email: "a@b.test" }), {}, created.api_key);
      assert.equal(revoked.status, 401);
      const guarded = await w.keyOf("acct_front", {
        type: "publishable",
        allowedOrigins: [SHOP],
        widget: { captcha: "turnstile" },
      });
      const unsolved = await post(JSON.stringify({ email: "a@b.test" }), {}, guarded.api_key);
      assert.equal(unsolved.status, 403);
      assert.equal(unsolved.headers.get("access-control-allow-origin"), SHOP);
      const solved = await post(
        JSON.stringify({ email: "a@b.test", captchaToken: w.captcha.issue() }),
        {},
        guarded.api_key,
      );
      assert.equal(solved.status, 200);
    });

    it("answers a preflight from an allowed origin only", { skip }, async () => {
      const preflight = (origin: string) =>
        fetch(`${base}/v1/widget/check-email?key=${pk}`, {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "POST" },
        });
      const ok = await preflight(SHOP);
      assert.equal(ok.status, 204);
      assert.equal(ok.headers.get("access-control-allow-origin"), SHOP);
      const refused = await preflight("https://evil.test");
      assert.equal(refused.status, 403);
      assert.equal((await errorOf(refused)).error_code, "ORIGIN_NOT_ALLOWED");
    });

    it("leaves a draining process's requests to the app, which still answers them", { skip }, async () => {
      w.h.services.lifecycle.shuttingDown = true;
      try {
        const res = await post(JSON.stringify({ email: "jane@gmial.com" }));
        assert.equal(res.status, 200);
      } finally {
        w.h.services.lifecycle.shuttingDown = false;
      }
    });

    it("leaves every request to the app once it is closing (its 503 and Connection: close)", {
      skip,
    }, async () => {
      let closing = false;
      const front = widgetFront({
        widget: w.h.services.widget,
        keys: { authenticateNow: () => undefined, beginAuthenticate: async () => undefined },
        clock: w.h.services.clock,
        maxBodyBytes: 1000,
        requestIdOf: () => "id",
        isClosing: () => closing,
        observe: undefined,
        log: { error: () => {}, warn: () => {} },
        replay: () => Promise.reject(new Error("not replayed")),
      });
      const req = {
        method: "POST",
        url: `/v1/widget/check-email?key=${pk}`,
        headers: { origin: SHOP, "content-type": "application/json", "content-length": "20" },
        socket: { remoteAddress: "127.0.0.1" },
      } as unknown as IncomingMessage;
      const res = {} as ServerResponse;
      let handedOver = 0;
      const app = () => {
        handedOver++;
      };
      closing = true;
      assert.equal(front(req, res, app), false);
      closing = false;
      // Taken, then handed to the app once the key turns out unknown (the app answers its 401).
      assert.equal(front(req, res, app), true);
      await waitFor(() => handedOver === 1, "the request handed to the app");
    });
  });
