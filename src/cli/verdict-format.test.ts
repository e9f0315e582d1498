import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { COLOURS, formatEmailResult, formatWebsiteResult, PLAIN, paintFor } from "./verdict-format.js";

describe("CLI verdict lines", () => {
  it("states an email verdict with its reason, key facts and credits in display units", () => {
    const text = formatEmailResult(
      {
        email: "alice@acme.test",
        status: "valid",
        valid: true,
        catchAll: false,
        disposable: false,
        domain: "acme.test",
        emailScore: 95,
        emailRisk: "low",
        emailType: "professional",
        service: "None",
        creditsDeducted: 0.001,
        creditsRemaining: 1.999,
      },
      PLAIN,
    );
    assert.equal(
      text,
      [
        "✔ VALID  alice@acme.test  the mailbox accepts mail",
        "  mail server acme.test · score 95/100 · risk low · catch-all no · disposable no · type professional",
        "  1 credit used, 1,999 left",
      ].join("\n"),
    );
  });

  it("gives the reason of a risky and an invalid address in the vocabulary's words for the API's code", () => {
    assert.match(
      formatEmailResult({ email: "x@c.test", status: "risky", catchAll: true }, PLAIN),
      /^! RISKY .*catch-all/,
    );
    assert.match(
      formatEmailResult({ email: "x@c.test", status: "invalid", emailReason: "mailbox_not_found" }, PLAIN),
      /^✖ INVALID {2}x@c\.test {2}Mailbox does not exist/,
    );
    assert.match(formatEmailResult({ email: "x@c.test", status: "unknown" }, PLAIN), /catch-all unknown/);
    assert.match(
      formatEmailResult({ email: "x@c.test", status: "invalid", reason: "dns_nxdomain" }, PLAIN),
      /x@c\.test {2}Domain does not exist$/m,
      "never the raw code's words (dns nxdomain)",
    );
  });

  it("states a website verdict: active, parked, or down with the error", () => {
    assert.match(
      formatWebsiteResult(
        {
          website: "acme.test",
          status: "active",
          httpStatus: 200,
          sslValid: true,
          isParked: false,
          responseTimeMs: 12.4,
          redirectChain: ["http://acme.test/"],
          finalUrl: "https://acme.test/",
        },
        PLAIN,
      ),
      /^✔ ACTIVE {2}acme\.test {2}answers HTTP 200\n {2}final URL https:\/\/acme\.test\/ · HTTP 200 · TLS valid · parked no · 12 ms · 1 redirect$/,
    );
    assert.match(
      formatWebsiteResult({ website: "p.test", status: "active", isParked: true }, PLAIN),
      /^! PARKED/,
    );
    assert.match(
      formatWebsiteResult(
        { website: "d.test", status: "inactive", error: "dns_nxdomain", sslValid: false },
        PLAIN,
      ),
      /^✖ INACTIVE {2}d\.test {2}Domain does not exist/,
    );
  });

  it("colours only terminals, never with NO_COLOR, always with FORCE_COLOR", () => {
    assert.equal(paintFor({ isTTY: true }, {}), COLOURS);
    assert.equal(paintFor({ isTTY: false }, {}), PLAIN);
    assert.equal(paintFor({ isTTY: true }, { NO_COLOR: "1" }), PLAIN);
    assert.equal(paintFor({ isTTY: false }, { FORCE_COLOR: "1" }), COLOURS);
    assert.ok(formatEmailResult({ email: "a@b.test", status: "invalid" }, COLOURS).includes("\u001b[31m"));
  });
});
