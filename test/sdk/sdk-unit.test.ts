// Pure rules of the SDK and the CLI's rendering: signature verification (against the service's
// own signer), Retry-After parsing, error mapping and the progress line.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorFromResponse, parseRetryAfterMs } from "../../sdk/src/errors.js";
import { type Batch, signWebhookPayload, verifyWebhookSignature } from "../../sdk/src/index.js";
import { renderProgress } from "../../src/cli/client-commands.js";
import { newWebhookSecret, signPayload } from "../../src/webhooks/signature.js";

describe("verifyWebhookSignature", () => {
  const secret = newWebhookSecret();
  const body = JSON.stringify({ event: "lead.created", data: { leadId: "lead_1", note: "héllo" } });
  const good = signPayload(secret, body);

  const cases: [string, string | Uint8Array, string | string[] | undefined | null, boolean][] = [
    ["the service's signature of the raw body", body, good, true],
    ["the same body as bytes", Buffer.from(body, "utf8"), good, true],
    ["upper-case hex", body, `sha256=${good.slice(7).toUpperCase()}`, true],
    ["surrounding whitespace", body, ` ${good} `, true],
    ["the header as a one-element array", body, [good], true],
    ["a tampered body", body.replace("lead_1", "lead_2"), good, false],
    ["re-serialized JSON", JSON.stringify(JSON.parse(body), null, 1), good, false],
    ["another secret's signature", body, signPayload(newWebhookSecret(), body), false],
    ["the hex without its prefix", body, good.slice(7), false],
    ["another algorithm's prefix", body, good.replace("sha256=", "sha1="), false],
    ["a truncated digest", body, good.slice(0, -2), false],
    ["non-hex characters", body, `${good.slice(0, -1)}z`, false],
    ["an empty header", body, "", false],
    ["no header", body, undefined, false],
    ["a null header", body, null, false],
  ];
  for (const [name, payload, header, expected] of cases) {
    it(`${expected ? "accepts" : "rejects"} ${name}`, () => {
      assert.equal(verifyWebhookSignature(secret, payload, header), expected);
    });
  }

  it("rejects everything under an empty secret", () => {
    assert.equal(verifyWebhookSignature("", body, signPayload("", body)), false);
  });

  it("signs exactly like the service", () => {
    assert.equal(signWebhookPayload(secret, body), good);
  });
});

describe("parseRetryAfterMs", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  const cases: [string | null, number | undefined][] = [
    ["30", 30_000],
    [" 7 ", 7_000],
    ["0", 0],
    ["Wed, 01 Jan 2025 00:00:10 GMT", 10_000],
    ["Tue, 31 Dec 2024 23:59:00 GMT", 0],
    ["soon", undefined],
    ["-5", undefined],
    [null, undefined],
  ];
  for (const [header, expected] of cases) {
    it(`reads ${JSON.stringify(header)} as ${expected} ms`, () => {
      assert.equal(parseRetryAfterMs(header, now), expected);
    });
  }
});

describe("errorFromResponse", () => {
  it("takes code, message and details from the service's error body", () => {
    const body = {
      error: "Payment Required",
      error_code: "PAYMENT_REQUIRED",
      message: "Not enough",
      details: { required: 1 },
    };
    const e = errorFromResponse(402, "Payment Required", new Headers({ "x-request-id": "r1" }), body);
    assert.deepEqual(
      [e.status, e.errorCode, e.message, e.details, e.requestId],
      [402, "PAYMENT_REQUIRED", "Not enough", { required: 1 }, "r1"],
    );
    assert.equal(e.body, body);
  });

  it("rounds Retry-After up to whole seconds", () => {
    const e = errorFromResponse(429, "", new Headers({ "retry-after": "3" }), "");
    assert.equal(e.retryAfterSeconds, 3);
    assert.equal(e.errorCode, "HTTP_429");
  });
});

describe("renderProgress", () => {
  const batch = (done: number, failed: number, total: number) =>
    ({
      totalLeads: total,
      completedLeads: done,
      failedLeads: failed,
      validLeads: done,
      invalidLeads: 0,
    }) as Batch;
  const cases: [Batch, string][] = [
    [batch(0, 0, 4), "[----------]   0% 0/4 (valid 0, invalid 0, failed 0)"],
    [batch(1, 1, 4), "[#####-----]  50% 2/4 (valid 1, invalid 0, failed 1)"],
    [batch(4, 0, 4), "[##########] 100% 4/4 (valid 4, invalid 0, failed 0)"],
    [batch(0, 0, 0), "[##########] 100% 0/0 (valid 0, invalid 0, failed 0)"],
  ];
  for (const [b, expected] of cases) {
    it(`draws ${expected}`, () => assert.equal(renderProgress(b, 10), expected));
  }
});

describe("client credentials in a browser session", () => {
  const seen: { url: string; headers: Record<string, string> }[] = [];
  const fetchSpy: typeof fetch = async (input, init) => {
    seen.push({ url: String(input), headers: { ...(init?.headers as Record<string, string>) } });
    return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
  };

  it("sends no credential header on a cookie session, the CSRF token on writes only, and the chosen account", async () => {
    const { LeadcheckClient } = await import("../../sdk/src/index.js");
    const client = new LeadcheckClient({
      baseUrl: "http://127.0.0.1:1",
      fetch: fetchSpy,
      cookieSession: { csrfToken: "csrf-1" },
      headers: { "x-account-id": "acct_team" },
    });
    await client.me();
    await client.team.revokeInvitation("inv_1");
    const [read, write] = seen;
    assert.equal(read!.headers["x-account-id"], "acct_team");
    assert.equal(read!.headers.authorization, undefined);
    assert.equal(read!.headers["x-api-key"], undefined);
    assert.equal(read!.headers["x-csrf-token"], undefined);
    assert.equal(write!.headers["x-csrf-token"], "csrf-1");
    assert.equal(write!.url, "http://127.0.0.1:1/v1/team/invitations/inv_1");
  });
});
