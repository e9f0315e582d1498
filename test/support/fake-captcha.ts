// A loopback stand-in for the siteverify endpoints of Cloudflare Turnstile and hCaptcha, with their
// documented request and response shapes: a form-encoded POST of secret, response and remoteip
// (hCaptcha also takes sitekey); a JSON answer { success, "error-codes", challenge_ts, hostname }.
// Tokens come from issue() and are single-use (a second use is "timeout-or-duplicate" for
// Turnstile, "invalid-or-already-seen-response" for hCaptcha), like the real services.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:http";

export interface FakeCaptcha {
  /** Base URL; Turnstile verifies at /turnstile/v0/siteverify, hCaptcha at /siteverify. */
  url: string;
  secret: string;
  /** A token a visitor would get by solving the challenge. */
  issue(): string;
  /** Every verification asked for: provider, the token and the remote IP. */
  requests: { provider: "turnstile" | "hcaptcha"; response: string; remoteip: string | null }[];
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeCaptcha(secret = "fake-captcha-secret"): Promise<FakeCaptcha> {
  const issued = new Set<string>();
  const used = new Set<string>();
  const requests: FakeCaptcha["requests"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const provider =
        req.url === "/turnstile/v0/siteverify" ? "turnstile" : req.url === "/siteverify" ? "hcaptcha" : null;
      const answer = (status: number, body: Record<string, unknown>) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.method !== "POST" || !provider)
        return answer(404, { success: false, "error-codes": ["bad-request"] });
      const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      const response = form.get("response") ?? "";
      requests.push({ provider, response, remoteip: form.get("remoteip") });
      const fail = (code: string) => answer(200, { success: false, "error-codes": [code] });
      if (!form.get("secret")) return fail("missing-input-secret");
      if (form.get("secret") !== secret) return fail("invalid-input-secret");
      if (!response) return fail("missing-input-response");
      if (used.has(response))
        return fail(provider === "turnstile" ? "timeout-or-duplicate" : "invalid-or-already-seen-response");
      if (!issued.has(response)) return fail("invalid-input-response");
      used.add(response);
      return answer(200, {
        success: true,
        "error-codes": [],
        challenge_ts: new Date().toISOString(),
        hostname: "shop.test",
        ...(provider === "hcaptcha" ? { credit: false } : {}),
      });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    secret,
    requests,
    issue() {
      const token = `fake-${randomUUID()}`;
      issued.add(token);
      return token;
    },
    env: {
      CAPTCHA_TURNSTILE_VERIFY_URL: `${url}/turnstile/v0/siteverify`,
      CAPTCHA_TURNSTILE_SECRET: secret,
      CAPTCHA_HCAPTCHA_VERIFY_URL: `${url}/siteverify`,
      CAPTCHA_HCAPTCHA_SECRET: secret,
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
