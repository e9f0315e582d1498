// Retries: a real 429 from the service's per-route limit is waited out (the service's clock is
// moved by the client's sleep, as the limiter counts in Date.now) and retried; a real 503 from
// /readiness is retried when asked to; a plain loopback upstream plays a proxy's 503 and 502.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { after, afterEach, before, describe, it, mock } from "node:test";
import { LeadcheckClient } from "../../sdk/src/index.js";
import { type Harness, startHarness } from "../support/harness.js";
import { failure } from "./sdk-support.js";

/** A fetch that records every answer's status and Retry-After on its way to the client. */
function observedFetch() {
  const answers: { status: number; retryAfter: string | null }[] = [];
  const impl: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    answers.push({ status: res.status, retryAfter: res.headers.get("retry-after") });
    return res;
  };
  return { answers, impl };
}

describe("SDK retries against the live service", () => {
  let h: Harness;
  let baseUrl = "";
  let apiKey = "";

  before(async () => {
    h = await startHarness("sqlite", { RATE_LIMIT_ENDPOINTS: "GET /v1/credits=1" });
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    baseUrl = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
  });
  afterEach(() => mock.timers.reset());
  after(async () => {
    await h?.close();
  });

  it("waits out a 429 for its Retry-After and then succeeds", async () => {
    apiKey = await h.apiKey("acct_retry");
    mock.timers.enable({ apis: ["Date"], now: Date.now() });
    const waits: number[] = [];
    const observed = observedFetch();
    const client = new LeadcheckClient({
      baseUrl,
      apiKey,
      fetch: observed.impl,
      sleep: async (ms) => {
        waits.push(ms);
        mock.timers.tick(ms);
      },
    });
    await client.credits.get();
    const balance = await client.credits.get();
    assert.equal(balance.userId, "acct_retry");
    assert.deepEqual(
      observed.answers.map((a) => a.status),
      [200, 429, 200],
    );
    const retryAfter = Number(observed.answers[1]!.retryAfter);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.deepEqual(waits, [retryAfter * 1000]);
  });

  it("throws the 429 as RATE_LIMIT_EXCEEDED when retries are off or the wait is too long", async () => {
    const key = await h.apiKey("acct_no_retry");
    mock.timers.enable({ apis: ["Date"], now: Date.now() });
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    await new LeadcheckClient({ baseUrl, apiKey: key }).credits.get();

    const noRetries = new LeadcheckClient({ baseUrl, apiKey: key, maxRetries: 0, sleep });
    const error = await failure(noRetries.credits.get());
    assert.equal(error.status, 429);
    assert.equal(error.errorCode, "RATE_LIMIT_EXCEEDED");
    assert.ok(error.retryAfterSeconds !== undefined && error.retryAfterSeconds >= 1);
    assert.equal(error.errorBody?.retry_after, error.retryAfterSeconds);

    const impatient = new LeadcheckClient({ baseUrl, apiKey: key, maxRetryWaitMs: 500, sleep });
    assert.equal((await failure(impatient.credits.get())).status, 429);
    assert.deepEqual(waits, [], "nothing was waited for");
  });

  it("gives up after maxRetries when the limit keeps answering 429", async () => {
    const key = await h.apiKey("acct_bounded");
    const observed = observedFetch();
    const sleeps: number[] = [];
    // The sleep does not move the clock, so every retry meets the same closed window.
    const client = new LeadcheckClient({
      baseUrl,
      apiKey: key,
      fetch: observed.impl,
      maxRetries: 2,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    await client.credits.get();
    const error = await failure(client.credits.get());
    assert.equal(error.status, 429);
    assert.deepEqual(
      observed.answers.map((a) => a.status),
      [200, 429, 429, 429],
    );
    assert.equal(sleeps.length, 2);
  });

  it("retries the service's 503 from /readiness only when retryOn503 is set", async () => {
    h.services.lifecycle.shuttingDown = true;
    try {
      const plain = new LeadcheckClient({ baseUrl });
      const error = await failure(plain.readiness());
      assert.equal(error.status, 503);
      assert.equal(error.errorCode, "HTTP_503", "readiness answers its own body, not the error body");

      const sleeps: number[] = [];
      const patient = new LeadcheckClient({
        baseUrl,
        retryOn503: true,
        sleep: async (ms) => {
          sleeps.push(ms);
          if (sleeps.length === 2) h.services.lifecycle.shuttingDown = false;
        },
      });
      assert.equal((await patient.readiness()).status, "ready");
      assert.deepEqual(sleeps, [500, 1000], "exponential backoff without a Retry-After");
    } finally {
      h.services.lifecycle.shuttingDown = false;
    }
  });
});

describe("SDK behind a misbehaving proxy", () => {
  let server: Server;
  let baseUrl = "";
  const hits: string[] = [];
  let answer: { status: number; type: string; body: string; retryAfter?: string } = {
    status: 503,
    type: "text/html",
    body: "",
  };

  before(async () => {
    server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      req.resume();
      res.writeHead(answer.status, {
        "content-type": answer.type,
        ...(answer.retryAfter ? { "retry-after": answer.retryAfter } : {}),
      });
      res.end(answer.body);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("never repeats a POST on 503 (the work may have started) but repeats a GET", async () => {
    answer = { status: 503, type: "text/html", body: "<h1>busy</h1>", retryAfter: "0" };
    const client = new LeadcheckClient({ baseUrl, apiKey: "sk_x", retryOn503: true, sleep: async () => {} });
    hits.length = 0;
    const post = await failure(client.checkWebsite("acme.test"));
    assert.equal(post.status, 503);
    assert.deepEqual(hits, ["POST /v1/check-website"]);

    hits.length = 0;
    await failure(client.leads.get("lead_1"));
    assert.equal(hits.length, 4, "the first try and 3 retries");
  });

  it("turns a non-JSON error page into HTTP_<status> with the page as the body", async () => {
    answer = { status: 502, type: "text/html", body: "<h1>Bad gateway</h1>" };
    const error = await failure(new LeadcheckClient({ baseUrl, apiKey: "sk_x" }).credits.get());
    assert.equal(error.errorCode, "HTTP_502");
    assert.equal(error.body, "<h1>Bad gateway</h1>");
  });

  it("refuses a 2xx answer that is not JSON as INVALID_RESPONSE", async () => {
    answer = { status: 200, type: "text/html", body: "<h1>login portal</h1>" };
    const error = await failure(new LeadcheckClient({ baseUrl, apiKey: "sk_x" }).credits.get());
    assert.equal(error.errorCode, "INVALID_RESPONSE");
    assert.equal(error.status, 200);
  });

  it("aborts a request that gets no answer within timeoutMs as REQUEST_TIMEOUT", async () => {
    const silent = createServer(() => {});
    silent.listen(0, "127.0.0.1");
    await once(silent, "listening");
    try {
      const port = (silent.address() as { port: number }).port;
      const client = new LeadcheckClient({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: "sk_x",
        timeoutMs: 100,
      });
      const error = await failure(client.credits.get());
      assert.equal(error.errorCode, "REQUEST_TIMEOUT");
      assert.equal(error.status, 0);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
